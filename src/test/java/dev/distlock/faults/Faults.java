package dev.distlock.faults;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Shared pieces of the fault tests: clients with short timeouts, time taking, the figure lines. */
final class Faults {

    /** Where {@link #figure} appends its lines, besides standard output (the surefire report). */
    static final Path FIGURES = Path.of("target", "fault-figures.txt");

    /** One command's answer. */
    static final int TIMEOUT_MILLIS = 1_000;
    static final int CONNECT_TIMEOUT_MILLIS = 1_000;
    static final int RETRY_ATTEMPTS = 1;
    static final Duration RETRY_DELAY = Duration.ofMillis(100);

    private Faults() {
    }

    /** A client of one server with short timeouts, so that a fault shows within seconds. */
    static RedissonClient client(int port) {
        return client(port, config -> { });
    }

    static RedissonClient client(int port, Consumer<Config> customizer) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + port)
                .setConnectionMinimumIdleSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setTimeout(TIMEOUT_MILLIS)
                .setConnectTimeout(CONNECT_TIMEOUT_MILLIS)
                .setRetryAttempts(RETRY_ATTEMPTS)
                .setRetryDelay(new ConstantDelay(RETRY_DELAY));
        customizer.accept(config);
        return Redisson.create(config);
    }

    static void shutdown(RedissonClient... clients) {
        for (RedissonClient client : clients) {
            if (client != null) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
    }

    /** One line of figures for the docs: printed and appended to {@link #FIGURES}. */
    static void figure(String scenario, String text) {
        String line = "FIGURE " + scenario + ": " + text;
        System.out.println(line);
        try {
            Files.createDirectories(FIGURES.getParent());
            Files.writeString(FIGURES, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void await(CountDownLatch latch, long seconds) {
        try {
            if (!latch.await(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within " + seconds + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
