package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port that delivers every byte, in each direction, a fixed time
 * after it arrived: a network between the client and the server with that one-way latency, and
 * no limit on bandwidth. Bytes keep their order; each chunk waits only for its own delay, so a
 * pipeline of requests is delayed once, not once per request. For benchmarks of a store across a
 * network, on one machine where {@code tc netem} is not available.
 *
 * <p>Each connection is two {@link DelayedPipe}s, one per direction. {@link #close()} ends every
 * connection and waits for every thread the proxy started.
 */
public final class DelayingProxy implements AutoCloseable {

    private static final int BACKLOG = 200;
    /** The target is on this machine or near it: a connection it does not take at once is refused. */
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    /** How long {@link #close()} waits for the proxy's threads, each blocked in I/O its sockets' closing ends. */
    private static final Duration THREADS_END_WITHIN = Duration.ofSeconds(10);

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final long delayNanos;
    private final Thread acceptor;
    private final List<Connection> connections = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private boolean closed;

    private DelayingProxy(ServerSocket server, String targetHost, int targetPort, long delayNanos) {
        this.server = server;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.delayNanos = delayNanos;
        this.acceptor = new Thread(this::accept, "delaying-proxy-" + server.getLocalPort());
        this.acceptor.setDaemon(true);
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
            ServerSocket server = new ServerSocket(0, BACKLOG, InetAddress.getLoopbackAddress());
            DelayingProxy proxy = new DelayingProxy(server, host, port, oneWayDelay.toNanos());
            proxy.acceptor.start();
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
        return accepted.get();
    }

    private void accept() {
        while (true) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket target = new Socket();
            try {
                target.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MILLIS);
                client.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                int number = accepted.incrementAndGet();
                Connection connection = new Connection(client, target, delayNanos, "delaying-proxy-" + port() + "-" + number);
                if (!register(connection)) {
                    connection.close();
                    return;
                }
                connection.start();
            } catch (IOException e) {
                // the target refused: so does the proxy
                DelayedPipe.closeQuietly(client);
                DelayedPipe.closeQuietly(target);
            }
        }
    }

    private synchronized boolean register(Connection connection) {
        if (closed) {
            return false;
        }
        connections.removeIf(Connection::ended);
        connections.add(connection);
        return true;
    }

    /** Stops accepting, ends every connection (both sides see it closed) and waits for the proxy's threads. */
    @Override
    public void close() {
        List<Connection> open;
        synchronized (this) {
            closed = true;
            open = List.copyOf(connections);
            connections.clear();
        }
        DelayedPipe.closeQuietly(server);
        open.forEach(Connection::close);
        long deadline = System.nanoTime() + THREADS_END_WITHIN.toNanos();
        boolean interrupted = false;
        try {
            joinUntil(acceptor, deadline);
            for (Connection connection : open) {
                connection.join(deadline);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    static void joinUntil(Thread thread, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
    }

    @Override
    public String toString() {
        return "DelayingProxy[127.0.0.1:" + port() + " -> " + targetHost + ":" + targetPort + ", "
                + delayNanos / 1_000 + " µs each way]";
    }

    /**
     * One proxied connection: a pipe each way. A side that ends its stream has that end passed on
     * (after the delay, as a FIN would be); once both have, or either fails, both sockets close.
     */
    private static final class Connection {

        private final Socket client;
        private final Socket target;
        private final DelayedPipe out;
        private final DelayedPipe in;
        private final AtomicInteger open = new AtomicInteger(2);

        Connection(Socket client, Socket target, long delayNanos, String name) throws IOException {
            this.client = client;
            this.target = target;
            this.out = new DelayedPipe(client, target, delayNanos, name + "-out", this::pipeEnded);
            this.in = new DelayedPipe(target, client, delayNanos, name + "-in", this::pipeEnded);
        }

        void start() {
            out.start();
            in.start();
        }

        private void pipeEnded(boolean cleanly) {
            if (!cleanly || open.decrementAndGet() == 0) {
                close();
            }
        }

        boolean ended() {
            return client.isClosed() && target.isClosed();
        }

        void close() {
            DelayedPipe.closeQuietly(client);
            DelayedPipe.closeQuietly(target);
        }

        void join(long deadlineNanos) throws InterruptedException {
            out.join(deadlineNanos);
            in.join(deadlineNanos);
        }
    }
}
