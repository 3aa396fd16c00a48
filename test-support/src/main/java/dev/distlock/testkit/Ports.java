package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/** Free TCP ports on the loopback interface. Never assumes 8080 or 6379 are free, or ours. */
public final class Ports {

    /** Ports handed out by this JVM, so two picks in a row never return the same one. */
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private Ports() {
    }

    /** A port nobody listens on right now, not handed out before by this JVM. */
    public static synchronized int free() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket socket = new ServerSocket(0)) {
                socket.setReuseAddress(true);
                int port = socket.getLocalPort();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free port", e);
            }
        }
        throw new IllegalStateException("no free port after 50 attempts");
    }

    /** {@code preferred} if nothing listens on it (on any interface), otherwise a free port. */
    public static synchronized int preferred(int preferred) {
        if (preferred > 0 && !HANDED_OUT.contains(preferred) && isFree(preferred)) {
            HANDED_OUT.add(preferred);
            return preferred;
        }
        return free();
    }

    static boolean isFree(int port) {
        try (ServerSocket any = new ServerSocket()) {
            any.setReuseAddress(true);
            any.bind(new InetSocketAddress(port));
        } catch (IOException e) {
            return false;
        }
        try (ServerSocket loopback = new ServerSocket()) {
            loopback.setReuseAddress(true);
            loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
