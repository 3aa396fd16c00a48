package dev.distlock.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal Redis client over a plain socket (RESP2), for looking at Redis from outside the
 * clients under test: {@code PUBSUB CHANNELS} cannot go through Redisson's script or key APIs,
 * and asking through a connection of its own keeps the check independent of Redisson's state.
 * Not thread-safe; one command at a time.
 */
final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** @param url {@code redis://[[user]:password@]host:port[/database]}; TLS ({@code rediss://}) is not supported */
    RespClient(String url) throws IOException {
        URI uri = URI.create(url);
        if (!"redis".equals(uri.getScheme())) {
            throw new IllegalArgumentException("only redis:// URLs are supported here, not " + uri.getScheme() + "://");
        }
        socket = new Socket();
        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()), 5_000);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = new BufferedOutputStream(socket.getOutputStream());
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? "" : decode(userInfo.substring(0, colon));
            String password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            if (user.isEmpty()) {
                command("AUTH", password);
            } else {
                command("AUTH", user, password);
            }
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            command("SELECT", path.substring(1));
        }
    }

    private static String decode(String part) {
        return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    /**
     * Sends one command and reads its reply: a {@code String} (simple or bulk), a {@code Long},
     * a {@code List<Object>} or {@code null}.
     *
     * @throws IllegalStateException when Redis answers with an error
     */
    Object command(String... args) throws IOException {
        out.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write('\r');
            out.write('\n');
        }
        out.flush();
        return reply();
    }

    /** Channels with at least one subscriber whose names match {@code pattern}. */
    @SuppressWarnings("unchecked")
    List<String> channels(String pattern) throws IOException {
        List<String> channels = new ArrayList<>();
        for (Object name : (List<Object>) command("PUBSUB", "CHANNELS", pattern)) {
            channels.add((String) name);
        }
        return channels;
    }

    /** Every key whose name matches {@code pattern}, by {@code SCAN} (does not block Redis like KEYS). */
    @SuppressWarnings("unchecked")
    List<String> keys(String pattern) throws IOException {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<Object> page = (List<Object>) command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = (String) page.get(0);
            for (Object key : (List<Object>) page.get(1)) {
                keys.add((String) key);
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    private Object reply() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("connection closed by Redis");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("connection closed inside a reply");
                }
                line(); // the CRLF after the data
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(reply());
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type '" + (char) type + "'");
        }
    }

    /** One line up to CRLF, without it. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c == -1) {
                throw new EOFException("connection closed inside a reply");
            }
            line.append((char) c);
        }
        if (in.read() != '\n') {
            throw new IOException("malformed RESP line: " + line);
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
