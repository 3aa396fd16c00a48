package dev.distlock.example.shop.launcher;

import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A Redis server of our own, from the binary in {@code com.github.codemonstur:embedded-redis}, on
 * the loopback interface. It can be stopped and started again on the same port, which is how the
 * tests take Redis away from the shop and give it back.
 */
public final class ShopRedis implements AutoCloseable {

    private final int port;
    private RedisServer server;

    private ShopRedis(int port) {
        this.port = port;
    }

    public static ShopRedis start(int port) {
        ShopRedis redis = new ShopRedis(port);
        redis.start();
        return redis;
    }

    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            RedisServer fresh = RedisServer.newRedisServer()
                    .port(port)
                    .bind("127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            fresh.start();
            server = fresh;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server on port " + port, e);
        }
    }

    /** Stops the server; its data is gone, as after a crash of a Redis without persistence. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.stop();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop redis-server on port " + port, e);
        } finally {
            server = null;
        }
    }

    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        stop();
    }
}
