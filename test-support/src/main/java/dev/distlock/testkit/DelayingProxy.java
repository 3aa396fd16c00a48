package dev.distlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free loopback port that delivers every byte, in each direction, a fixed time
 * after it arrived: a network between the client and the server with that one-way latency, and
 * no limit on bandwidth. Bytes keep their order; each chunk waits only for its own delay, so a
 * pipeline of requests is delayed once, not once per request. For benchmarks of a store across a
 * network, on one machine where {@code tc netem} is not available.
 *
 * <p>Each connection has a reader and a writer thread per direction; the writer sleeps until the
 * oldest chunk is due (Linux wakes a parked thread some 50–60 µs late, which is the proxy's
 * precision). {@link #close()} ends every connection and thread.
 */
public final class DelayingProxy implements AutoCloseable {

    private static final int CHUNK_BYTES = 64 * 1024;
    /** Marks the end of one direction's stream in its queue. */
    private static final Chunk END = new Chunk(new byte[0], 0);

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final long delayNanos;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    private DelayingProxy(ServerSocket server, String targetHost, int targetPort, long delayNanos) {
        this.server = server;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.delayNanos = delayNanos;
    }

    /**
     * Listens on a free loopback port and forwards every connection to {@code host:port}.
     *
     * @param oneWayDelay how long each byte takes to get through, in each direction; zero forwards at once
     */
    public static DelayingProxy start(String host, int port, Duration oneWayDelay) {
        Objects.requireNonNull(host, "host");
        if (oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("oneWayDelay must not be negative, was " + oneWayDelay);
        }
        try {
            ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
            DelayingProxy proxy = new DelayingProxy(server, host, port, oneWayDelay.toNanos());
            daemon(proxy::accept, "delaying-proxy-" + server.getLocalPort()).start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("could not listen on a loopback port", e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code redis://127.0.0.1:port}, for a Redis behind the proxy. */
    public String redisUrl() {
        return "redis://127.0.0.1:" + port();
    }

    public Duration oneWayDelay() {
        return Duration.ofNanos(delayNanos);
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket target = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(target);
                int number = connections.incrementAndGet();
                pump(client, target, "delaying-proxy-" + port() + "-" + number + "-out");
                pump(target, client, "delaying-proxy-" + port() + "-" + number + "-in");
            } catch (IOException e) {
                closeQuietly(client); // the target refused: so does the proxy
            }
        }
    }

    /** Copies {@code from} to {@code to}, each chunk {@link #delayNanos} after it was read. */
    private void pump(Socket from, Socket to, String name) throws IOException {
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        daemon(() -> {
            byte[] buffer = new byte[CHUNK_BYTES];
            try {
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                    queue.add(new Chunk(java.util.Arrays.copyOf(buffer, read), System.nanoTime() + delayNanos));
                }
            } catch (IOException e) {
                // the connection ended
            }
            queue.add(END);
        }, name + "-read").start();
        daemon(() -> {
            try {
                for (Chunk chunk = queue.take(); chunk != END; chunk = queue.take()) {
                    for (long wait = chunk.dueNanos - System.nanoTime(); wait > 0; wait = chunk.dueNanos - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                    out.write(chunk.bytes);
                    out.flush();
                }
                to.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, name + "-write").start();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        sockets.forEach(DelayingProxy::closeQuietly);
        sockets.clear();
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (SocketException alreadyClosed) {
            // nothing left to close
        } catch (Exception e) {
            // closing is best effort
        }
    }

    @Override
    public String toString() {
        return "DelayingProxy[127.0.0.1:" + port() + " -> " + targetHost + ":" + targetPort + ", "
                + delayNanos / 1_000 + " µs each way]";
    }

    private record Chunk(byte[] bytes, long dueNanos) {
    }
}
