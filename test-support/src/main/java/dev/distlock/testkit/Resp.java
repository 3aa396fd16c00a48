package dev.distlock.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny RESP2 client over a socket, for the raw commands a topology test needs and Redisson does
 * not offer (CLUSTER ADDSLOTS, CLUSTER MEET, SENTINEL ..., INFO of one particular node), and for
 * looking at Redis from outside the clients under test (keys and channels left behind). Not
 * thread-safe: one command at a time. Replies:
 * simple and bulk strings as {@link String}, integers as {@link Long}, arrays as {@link List},
 * nil as {@code null}; an error reply throws {@link ErrorReply} (inside an array it is an element).
 */
public final class Resp implements AutoCloseable {

    /** An error reply of Redis, e.g. {@code ERR unknown command}. */
    public static final class ErrorReply extends RuntimeException {
        public ErrorReply(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    public static Resp connect(int port, int timeoutMillis) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            return new Resp(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to keep
        }
    }

    /**
     * A connection to {@code redis://[[user]:password@]host:port[/database]}, authenticated and on
     * that database; TLS ({@code rediss://}) is not supported here.
     */
    public static Resp connect(String url, int timeoutMillis) {
        URI uri = URI.create(url);
        if (!"redis".equals(uri.getScheme())) {
            throw new IllegalArgumentException("only redis:// URLs are supported here, not " + url);
        }
        Socket socket = new Socket();
        Resp resp;
        try {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            resp = new Resp(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot connect to " + uri.getHost() + ":" + uri.getPort(), e);
        }
        try {
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null && !userInfo.isEmpty()) {
                int colon = userInfo.indexOf(':');
                String user = colon < 0 ? "" : decode(userInfo.substring(0, colon));
                String password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
                if (user.isEmpty()) {
                    resp.command("AUTH", password);
                } else {
                    resp.command("AUTH", user, password);
                }
            }
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                resp.command("SELECT", path.substring(1));
            }
            return resp;
        } catch (RuntimeException e) {
            resp.close();
            throw e;
        }
    }

    private static String decode(String part) {
        return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    /** One command on a connection of its own. */
    public static Object call(int port, String... command) {
        return call(port, 2_000, command);
    }

    /** One command on a connection of its own, waiting at most {@code timeoutMillis} for the reply. */
    public static Object call(int port, int timeoutMillis, String... command) {
        try (Resp resp = connect(port, timeoutMillis)) {
            return resp.command(command);
        }
    }

    public Object command(String... command) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + command.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String part : command) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(request.toByteArray());
            out.flush();
            Object reply = read();
            if (reply instanceof ErrorReply error) {
                throw new ErrorReply(error.getMessage() + " (reply to " + command[0] + ")");
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("RESP command " + command[0] + " to port " + socket.getPort() + " failed", e);
        }
    }

    public long pttl(String key) {
        return (Long) command("PTTL", key);
    }

    public boolean exists(String key) {
        return (Long) command("EXISTS", key) == 1;
    }

    /** The keys that match {@code pattern} (KEYS: for test servers, which hold few). */
    public List<String> keys(String pattern) {
        return strings(command("KEYS", pattern));
    }

    /** The Pub/Sub channels with subscribers that match {@code pattern}. */
    public List<String> channels(String pattern) {
        return strings(command("PUBSUB", "CHANNELS", pattern));
    }

    private static List<String> strings(Object reply) {
        List<String> strings = new ArrayList<>();
        for (Object item : (List<?>) reply) {
            strings.add((String) item);
        }
        return strings;
    }

    /** A hash's fields and values, in Redis's order; empty when the key does not exist. */
    public Map<String, String> hgetall(String key) {
        List<?> flat = (List<?>) command("HGETALL", key);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return fields;
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                if (bytes.length < length + 2) {
                    throw new EOFException("bulk string cut short");
                }
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("not RESP: type byte " + type);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed inside a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
