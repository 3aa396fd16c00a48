package dev.distlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a free loopback port in front of a server, that a test can cut off as a network
 * partition cuts one node off: from {@link #cut()} nothing passes in either direction, and nothing
 * is refused or reset either; every side simply hears nothing, as across a dropped link. At
 * {@link #heal()} what was held back is delivered, late, as TCP's retransmissions deliver it once
 * a link returns.
 *
 * <p>Why a proxy and not network namespaces: it gives the same silence (no RST, no FIN, sockets that
 * stay open and answer nothing) without root, so the partition tests run on every machine, and it
 * cuts exactly one node's link while the others reach the same server directly. One difference:
 * a connection opened during the cut is accepted (by the proxy) and then hears nothing, where a
 * dropped link would let the connect itself time out; clients see a timeout either way.
 */
public final class PartitionProxy implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean cut;
    private boolean closed;
    private int cuts;
    private final java.util.concurrent.atomic.AtomicLong passed = new java.util.concurrent.atomic.AtomicLong();

    /** A proxy to {@code targetHost:targetPort}, listening on a free port of 127.0.0.1. */
    public PartitionProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "partition-proxy-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to a server on this machine's loopback address. */
    public PartitionProxy(int targetPort) throws IOException {
        this(InetAddress.getLoopbackAddress().getHostAddress(), targetPort);
    }

    /** The port to connect to instead of the server's. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:<port>} of the proxy. */
    public String address() {
        return listener.getInetAddress().getHostAddress() + ":" + port();
    }

    /** From now on nothing passes, until {@link #heal()}. */
    public void cut() {
        synchronized (gate) {
            if (!cut) {
                cut = true;
                cuts++;
            }
        }
    }

    /** Lets everything through again, what was held back first. */
    public void heal() {
        synchronized (gate) {
            cut = false;
            gate.notifyAll();
        }
    }

    public boolean isCut() {
        synchronized (gate) {
            return cut;
        }
    }

    /**
     * Bytes delivered so far, both ways: a test watches a node's traffic with the server here
     * without asking the node, whose own answers may queue behind its load.
     */
    public long bytesPassed() {
        return passed.get();
    }

    /** How many times the link was cut. */
    public int cuts() {
        synchronized (gate) {
            return cuts;
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Socket target = new Socket(targetHost, targetPort);
                sockets.add(target);
                pump(client, target);
                pump(target, client);
            } catch (IOException e) {
                if (listener.isClosed()) {
                    return;
                }
                // the server refused this one connection; the client sees it closed
            }
        }
    }

    private void pump(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[BUFFER];
            try {
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                    awaitLink();
                    out.write(buffer, 0, read);
                    out.flush();
                    passed.addAndGet(read);
                }
                // The end of the stream, too, passes only over a link.
                awaitLink();
            } catch (IOException | InterruptedException e) {
                // a side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "partition-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits while the link is cut; a proxy closed meanwhile delivers nothing it held back. */
    private void awaitLink() throws InterruptedException, IOException {
        synchronized (gate) {
            while (cut && !closed) {
                gate.wait();
            }
            if (closed) {
                throw new IOException("closed");
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Closes every connection; what a cut link held back is dropped, not delivered. */
    @Override
    public void close() {
        synchronized (gate) {
            closed = true;
            gate.notifyAll();
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(PartitionProxy::closeQuietly);
    }
}
