package dev.distlock.internal.id;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy to a real server that a test can cut, as a network partition would: from then on
 * every byte either way is dropped and new connections are accepted but lead nowhere, so requests
 * time out rather than fail fast. The server itself stays up for everyone else.
 */
final class CuttableProxy implements AutoCloseable {

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean cut;
    private volatile boolean closed;

    CuttableProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** {@code redis://127.0.0.1:<port>} of the proxy. */
    String redisUrl() {
        return "redis://127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on nothing gets through, in either direction. */
    void cut() {
        cut = true;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                if (cut) {
                    pump(client.getInputStream(), OutputStream.nullOutputStream(), "proxy-blackhole");
                    continue;
                }
                Socket server = new Socket(targetHost, targetPort);
                sockets.add(server);
                pump(client.getInputStream(), server.getOutputStream(), "proxy-up");
                pump(server.getInputStream(), client.getOutputStream(), "proxy-down");
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("proxy: " + e);
                }
            }
        }
    }

    private void pump(InputStream from, OutputStream to, String name) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[BUFFER];
            try {
                int read;
                while ((read = from.read(buffer)) >= 0) {
                    if (!cut) {
                        to.write(buffer, 0, read);
                        to.flush();
                    }
                }
            } catch (IOException endOfConnection) {
                // one side closed; the other side notices on its own
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
