package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;

/**
 * Runs in a JVM whose class path has distlock but neither backend artifact (so no Curator nor
 * ZooKeeper), as a Redis user's application has: deploys with the backend named in {@code args[0]}
 * and prints what happened.
 */
public final class WithoutBackendModulesChild {

    @ApplicationScoped
    public static class Counter {
        private int count;

        @Locked("counter")
        public int increment() {
            return ++count;
        }
    }

    public static void main(String[] args) {
        boolean curator;
        try {
            Class.forName("org.apache.curator.framework.CuratorFramework");
            curator = true;
        } catch (ClassNotFoundException e) {
            curator = false;
        }
        System.out.println("CURATOR " + (curator ? "present" : "absent"));
        System.out.println("PROVIDERS " + java.util.ServiceLoader.load(dev.distlock.spi.LockBackendProvider.class).stream()
                .map(provider -> provider.get().name()).sorted().toList()); // distlock's own: in-memory and Redis
        Map<String, String> config = args[0].equals("zookeeper")
                ? Map.of("distlock.backend", "zookeeper", "distlock.zookeeper.connect", "127.0.0.1:2181")
                : Map.of("distlock.redis.address", args[1]);
        try (DistlockWeld weld = DistlockWeld.start(config, Counter.class)) {
            System.out.println("RAN " + weld.bean(Counter.class).increment());
        } catch (Throwable e) {
            System.out.println("FAILED " + DistlockWeld.messages(e).replace('\n', ' '));
        }
        System.exit(0);
    }
}
