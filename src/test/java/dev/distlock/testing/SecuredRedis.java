package dev.distlock.testing;

import dev.distlock.testkit.Ports;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A redis-server of the test's own that lets nobody in without a password: one ACL user with
 * every right, the {@code default} user switched off; optionally also TLS on a second port (the
 * embedded binary is built with OpenSSL). Stopped by {@link #close()}.
 */
public final class SecuredRedis implements AutoCloseable {

    private final RedisServer server;
    private final int port;
    private final int tlsPort;
    private final String username;
    private final String password;

    private SecuredRedis(RedisServer server, int port, int tlsPort, String username, String password) {
        this.server = server;
        this.port = port;
        this.tlsPort = tlsPort;
        this.username = username;
        this.password = password;
    }

    /** Plain TCP only. */
    public static SecuredRedis start(String username, String password) {
        return start(username, password, null);
    }

    /** With {@code tls} also TLS, on {@link #tlsPort()}; clients need not present a certificate. */
    public static SecuredRedis start(String username, String password, TlsMaterial tls) {
        if (username.contains(" ") || password.contains(" ")) {
            throw new IllegalArgumentException("no spaces: the ACL line in the config file would split there");
        }
        int port = Ports.free();
        int tlsPort = tls == null ? -1 : Ports.free();
        RedisServerBuilder builder = RedisServer.newRedisServer()
                .port(port)
                .bind("127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("user " + username + " on >" + password + " ~* &* +@all")
                .setting("user default off");
        if (tls != null) {
            builder.setting("tls-port " + tlsPort)
                    .setting("tls-cert-file \"" + tls.certificatePem() + "\"")
                    .setting("tls-key-file \"" + tls.privateKeyPem() + "\"")
                    .setting("tls-ca-cert-file \"" + tls.certificatePem() + "\"")
                    .setting("tls-auth-clients no");
        }
        try {
            RedisServer server = builder.build();
            server.start();
            return new SecuredRedis(server, port, tlsPort, username, password);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a secured redis-server on port " + port, e);
        }
    }

    public int port() {
        return port;
    }

    public int tlsPort() {
        if (tlsPort < 0) {
            throw new IllegalStateException("started without TLS");
        }
        return tlsPort;
    }

    /** {@code redis://127.0.0.1:port}, without credentials. */
    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    /** A client of the test's own with the right credentials, to look at what distlock left in Redis. */
    public RedissonClient adminClient() {
        Config config = new Config();
        config.setUsername(username);
        config.setPassword(password);
        config.useSingleServer().setAddress(address()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2).setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
