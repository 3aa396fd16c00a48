package dev.distlock.faults;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A raw RESP connection to Redis, outside Redisson: for commands that act on the server itself
 * ({@code CLIENT PAUSE}) and for looking at keys without a client that a fault may be stalling.
 * Replies: simple strings and bulk strings as {@link String}, integers as {@link Long}, arrays as
 * {@link List}, nil as {@code null}; an error reply throws {@link Resp.Error}.
 */
final class Resp implements AutoCloseable {

    static final class Error extends RuntimeException {
        Error(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new BufferedInputStream(socket.getInputStream());
    }

    /** @param timeoutMillis for connecting and for every reply */
    static Resp connect(int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            return new Resp(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    Object call(String... args) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.write(request.toByteArray());
        out.flush();
        return read();
    }

    long pttl(String key) throws IOException {
        return (Long) call("PTTL", key);
    }

    boolean exists(String key) throws IOException {
        return (Long) call("EXISTS", key) == 1;
    }

    /** A hash's fields and values, in Redis's order; empty when the key does not exist. */
    Map<String, String> hgetall(String key) throws IOException {
        List<?> flat = (List<?>) call("HGETALL", key);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return fields;
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by Redis");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("connection closed in a reply");
                }
                readLine();
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    try {
                        items.add(read());
                    } catch (Error nested) {
                        items.add(nested);
                    }
                }
                return items;
            }
            default:
                throw new IOException("not a RESP reply type: " + (char) type);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in a reply");
            }
            if (b == '\r') {
                int next = in.read();
                if (next != '\n') {
                    throw new IOException("expected LF after CR");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
