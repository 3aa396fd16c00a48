package dev.distlock.example.shop.e2e;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** One Redis command over a plain socket, for tests that look at Redis without a client of their own. */
final class RedisWire {

    private RedisWire() {
    }

    static boolean exists(int port, String key) {
        return command(port, "EXISTS", key).equals(List.of("1"));
    }

    /** The keys that match {@code pattern} (a test Redis holds few). */
    static List<String> keys(int port, String pattern) {
        return command(port, "KEYS", pattern);
    }

    /** Sends a command; the reply as a list: an integer or a status as one element, an array element by element. */
    private static List<String> command(int port, String... words) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String first = line(in);
            List<String> reply = new ArrayList<>();
            switch (first.charAt(0)) {
                case ':', '+' -> reply.add(first.substring(1));
                case '*' -> {
                    int count = Integer.parseInt(first.substring(1));
                    for (int i = 0; i < count; i++) {
                        int length = Integer.parseInt(line(in).substring(1));
                        reply.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
                        line(in);
                    }
                }
                default -> throw new IllegalStateException("Redis answered " + first + " to " + words[0]);
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("could not ask Redis on port " + port, e);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) {
            line.append((char) c);
        }
        in.read(); // '\n'
        return line.toString();
    }
}
