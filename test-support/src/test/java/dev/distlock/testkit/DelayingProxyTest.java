package dev.distlock.testkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.config.Config;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The delaying proxy in front of a real Redis: a round trip takes at least twice the one-way delay,
 * and bytes arrive whole and in order, a large value and a long pipeline alike. Only lower bounds
 * of time are asserted: a shared, slow machine may take longer than the proxy's delay, never less.
 */
@Timeout(120)
class DelayingProxyTest {

    private static final Duration ONE_WAY = Duration.ofMillis(1);
    private static RedisProcess redis;
    private static DelayingProxy proxy;

    @BeforeAll
    static void start() {
        redis = RedisProcess.startOnFreePort();
        proxy = DelayingProxy.start("127.0.0.1", redis.port(), ONE_WAY);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aRoundTripTakesAtLeastTwiceTheOneWayDelay() {
        try (Resp resp = Resp.connect(proxy.port(), 5_000)) {
            assertEquals("PONG", resp.command("PING"));
            for (int i = 0; i < 20; i++) {
                long started = System.nanoTime();
                assertEquals("PONG", resp.command("PING"));
                long took = System.nanoTime() - started;
                assertTrue(took >= 2 * ONE_WAY.toNanos(), "a round trip took " + took / 1000 + " µs");
            }
        }
    }

    @Test
    void aLargeValueComesBackByteForByte() {
        RedissonClient client = client();
        try {
            byte[] value = new byte[6 * 1024 * 1024];
            new Random(42).nextBytes(value);
            client.getBucket("proxy:large", ByteArrayCodec.INSTANCE).set(value);
            byte[] back = (byte[]) client.getBucket("proxy:large", ByteArrayCodec.INSTANCE).get();
            assertArrayEquals(value, back);
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPipelineKeepsItsOrder() {
        RedissonClient client = client();
        try {
            client.getKeys().delete("proxy:counter");
            RBatch batch = client.createBatch();
            int commands = 2_000;
            for (int i = 0; i < commands; i++) {
                batch.getAtomicLong("proxy:counter").incrementAndGetAsync();
            }
            long started = System.nanoTime();
            BatchResult<?> result = batch.execute();
            long took = System.nanoTime() - started;
            List<Long> expected = new ArrayList<>();
            for (long i = 1; i <= commands; i++) {
                expected.add(i);
            }
            assertEquals(expected, result.getResponses());
            assertTrue(took >= 2 * ONE_WAY.toNanos(), "the pipeline took " + took / 1000 + " µs");
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClosedStreamIsPassedOnAfterItsBytes() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             DelayingProxy toEcho = DelayingProxy.start("127.0.0.1", echo.getLocalPort(), ONE_WAY);
             Socket client = new Socket("127.0.0.1", toEcho.port())) {
            client.setSoTimeout(30_000);
            Thread server = new Thread(() -> echoUntilEnd(echo), "echo");
            server.start();
            OutputStream out = client.getOutputStream();
            out.write("last words".getBytes(StandardCharsets.US_ASCII));
            client.shutdownOutput();
            // The echo server sends back what it got and closes once it read the end: both
            // directions end cleanly, and the client reads the bytes, then the end.
            assertEquals("last words", new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
            server.join();
        }
    }

    @Test
    void closeEndsEveryConnectionAndThread() throws Exception {
        DelayingProxy closing = DelayingProxy.start("127.0.0.1", redis.port(), ONE_WAY);
        String threads = "delaying-proxy-" + closing.port();
        try (Socket client = new Socket("127.0.0.1", closing.port())) {
            client.setSoTimeout(30_000);
            client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = client.getInputStream();
            assertEquals('+', in.read(), "the answer to PING arrives");
            assertTrue(liveThreads(threads) > 0, "the proxy runs threads of its own");

            closing.close();

            assertTrue(in.skip(100) >= 0 && in.read() == -1, "the client sees the connection end");
        } catch (IOException reset) {
            // also an end: the proxy closed the socket under the client
        }
        assertEquals(0, liveThreads(threads), "threads of the proxy left running");
        assertEquals(1, closing.connections());
    }

    @Test
    void anIdleConnectionCostsNoCpu() throws Exception {
        try (Resp resp = Resp.connect(proxy.port(), 5_000)) {
            assertEquals("PONG", resp.command("PING"));
            String threads = "delaying-proxy-" + proxy.port() + "-";
            long before = proxyCpuNanos(threads);
            Thread.sleep(500);
            long spent = proxyCpuNanos(threads) - before;
            // Threads that wait in I/O or on the queue spend nothing; one that polled would spend most of the 500 ms.
            assertTrue(spent < 50_000_000L, "the proxy's threads spent " + spent / 1000 + " µs of CPU on an idle connection");
        }
    }

    private static long proxyCpuNanos(String prefix) {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().startsWith(prefix))
                .mapToLong(thread -> Math.max(0, cpu.getThreadCpuTime(thread.getId()))).sum();
    }

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> (thread.getName().equals(prefix) || thread.getName().startsWith(prefix + "-")) && thread.isAlive())
                .count();
    }

    private static void echoUntilEnd(ServerSocket echo) {
        try (Socket socket = echo.accept()) {
            socket.getOutputStream().write(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(proxy.redisUrl()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0).setTimeout(10_000);
        return Redisson.create(config);
    }
}
