package dev.distlock.redis;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Netty, under Redisson, keeps state per thread in a {@code ThreadLocal} of its own (when a
 * connection is set up, and for caches of its handlers). On the server's threads — a request
 * thread that took the first lock, a health check — that entry holds an object of a class loaded
 * from the application's {@code WEB-INF/lib}, so the pooled thread keeps the whole application
 * (its class loader and every class in it) alive after it is undeployed, once per redeploy.
 * distlock removes the entry when its work on such a thread is done; netty's own threads keep
 * theirs, and die with the client.
 */
final class NettyThreadState {

    private NettyThreadState() {
    }

    /** Forgets netty's state on the current thread unless the thread is netty's own. Cheap when there is none. */
    static void release() {
        if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
            FastThreadLocal.removeAll();
        }
    }
}
