package dev.distlock.zookeeper;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockBackendProvider;

import java.time.Duration;

/**
 * {@code distlock.backend=zookeeper}: locks as Curator recipes under {@code distlock.zookeeper.root}
 * in the ensemble {@code distlock.zookeeper.connect}, and Snowflake worker ids as ephemeral nodes of
 * the same session.
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {

    static final String PREFIX = "distlock.zookeeper.";
    static final String DEFAULT_ROOT = "/distlock";
    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public Configured configure(Settings settings) {
        String connect = settings.value(PREFIX + "connect").orElseThrow(() -> new LockDefinitionException("Config "
                + "distlock.backend=zookeeper needs " + PREFIX + "connect, the ensemble as host:port[,host:port...], "
                + "e.g. zk1:2181,zk2:2181,zk3:2181"));
        checkConnect(connect);
        String root = settings.value(PREFIX + "root").orElse(DEFAULT_ROOT);
        if (!root.startsWith("/") || root.endsWith("/") || root.contains("//")) {
            throw new LockDefinitionException("Config " + PREFIX + "root=" + root
                    + ": must be an absolute ZooKeeper path without a trailing '/', e.g. /distlock");
        }
        long session = settings.duration(PREFIX + "session-timeout", DEFAULT_SESSION_TIMEOUT).toMillis();
        long connection = settings.duration(PREFIX + "connection-timeout", DEFAULT_CONNECTION_TIMEOUT).toMillis();
        long grace = settings.answerGrace().toMillis();
        return new Configured() {
            @Override
            public String describe() {
                return "ZooKeeper (" + connect + root + ")";
            }

            @Override
            public LockBackend start(Beans beans) {
                return ZooKeeperBackend.connect(connect, root, session, connection, grace);
            }
        };
    }

    private static void checkConnect(String connect) {
        String hosts = connect.contains("/") ? connect.substring(0, connect.indexOf('/')) : connect;
        for (String host : hosts.split(",")) {
            String hostPort = host.strip();
            int colon = hostPort.lastIndexOf(':');
            boolean valid = colon > 0 && colon < hostPort.length() - 1;
            if (valid) {
                try {
                    int port = Integer.parseInt(hostPort.substring(colon + 1));
                    valid = port > 0 && port < 65536;
                } catch (NumberFormatException e) {
                    valid = false;
                }
            }
            if (!valid) {
                throw new LockDefinitionException("Config " + PREFIX + "connect=" + connect + ": '" + hostPort
                        + "' is not host:port; expected host:port[,host:port...]");
            }
        }
    }
}
