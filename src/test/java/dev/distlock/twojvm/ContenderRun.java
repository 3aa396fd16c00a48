package dev.distlock.twojvm;

import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Starts {@link Contender} JVMs against one Redis, releases them together, waits for them and
 * collects what they report. Every child is gone when {@link #run()} returns or throws.
 *
 * @param redisUrl    the Redis every child connects to
 * @param guard       what guards the children's critical section
 * @param jvms        how many child JVMs
 * @param threads     threads per JVM
 * @param iterations  critical sections per thread
 * @param pauseMicros the pause between GET and SET of the counter: the window a lost update needs
 * @param timeout     how long the whole run may take, JVM start-up included; then the children are killed
 */
public record ContenderRun(String redisUrl, Guard guard, int jvms, int threads, int iterations,
                           long pauseMicros, Duration timeout) {

    /** Enough to see a lost update every time without the lock, short enough not to slow the locked run much. */
    public static final long DEFAULT_PAUSE_MICROS = 500;

    private static final List<String> CHILD_JVM_OPTIONS = List.of(
            "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    /** A child halts itself this long after the run's timeout, in case its parent could not kill it. */
    private static final long CHILD_DEADLINE_MARGIN_MILLIS = 10_000;
    private static final long POLL_MILLIS = 10;
    private static final long KILL_WAIT_SECONDS = 10;

    public ContenderRun {
        Objects.requireNonNull(redisUrl, "redisUrl");
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(timeout, "timeout");
        if (jvms < 1 || threads < 1 || iterations < 1 || pauseMicros < 0) {
            throw new IllegalArgumentException("jvms, threads and iterations must be >= 1 and pauseMicros >= 0: " + this);
        }
    }

    /**
     * @return the figures of a run in which every child started, was released and exited in time
     *         (with whatever exit code)
     * @throws ContenderRunException if a child died before the start or the run took too long;
     *                               its message holds every child's output
     */
    public RunOutcome run() throws InterruptedException {
        String prefix = "twojvm-" + guard.argument() + "-" + UUID.randomUUID().toString().substring(0, 8);
        long deadline = System.nanoTime() + timeout.toNanos();
        RedissonClient redis = connect(redisUrl);
        List<Child> children = new ArrayList<>(jvms);
        try {
            for (int i = 1; i <= jvms; i++) {
                children.add(Child.start("jvm-" + i, command(prefix, "jvm-" + i)));
            }
            awaitReady(redis, prefix, children, deadline);
            redis.getBucket(ContenderKeys.go(prefix), StringCodec.INSTANCE).set("go");
            for (Child child : children) {
                long remaining = deadline - System.nanoTime();
                if (!child.process.waitFor(Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
                    throw failure("the run did not finish within " + timeout + "; killed the contenders", children);
                }
            }
            RBucket<String> counterBucket = redis.getBucket(ContenderKeys.counter(prefix), StringCodec.INSTANCE);
            String counter = counterBucket.get();
            List<RunOutcome.ChildReport> reports = new ArrayList<>();
            for (Child child : children) {
                String output = child.output();
                reports.add(new RunOutcome.ChildReport(child.name, child.process.exitValue(), output,
                        ContenderResult.find(output).orElse(null)));
            }
            return new RunOutcome(this, reports, counter == null ? 0 : Long.parseLong(counter));
        } finally {
            for (Child child : children) {
                child.kill();
            }
            for (Child child : children) {
                child.deleteOutput();
            }
            try {
                redis.getKeys().deleteByPattern(ContenderKeys.all(prefix));
            } catch (RuntimeException e) {
                // Keys left behind are harmless (the prefix is the run's own); the run's outcome matters more.
                System.err.println("could not delete the run's keys " + ContenderKeys.all(prefix) + ": " + e);
            } finally {
                redis.shutdown();
            }
        }
    }

    private void awaitReady(RedissonClient redis, String prefix, List<Child> children, long deadline)
            throws InterruptedException {
        while (redis.getAtomicLong(ContenderKeys.ready(prefix)).get() < jvms) {
            for (Child child : children) {
                if (!child.process.isAlive()) {
                    throw failure(child.name + " exited with " + child.process.exitValue() + " before the start", children);
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure("the contenders were not all ready within " + timeout, children);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private List<String> command(String prefix, String name) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(CHILD_JVM_OPTIONS);
        command.add("-cp");
        command.add(classpath());
        command.add(Contender.class.getName());
        command.add(redisUrl);
        command.add(prefix);
        command.add(guard.argument());
        command.add(Integer.toString(threads));
        command.add(Integer.toString(iterations));
        command.add(name);
        command.add(Long.toString(pauseMicros));
        command.add(Long.toString(timeout.toMillis() + CHILD_DEADLINE_MARGIN_MILLIS));
        command.add(Long.toString(ProcessHandle.current().pid()));
        return command;
    }

    /**
     * The classpath this class was loaded from. Under {@code exec:java} that is a class loader
     * inside Maven's JVM, and {@code java.class.path} is Maven's own; under surefire and plain
     * {@code java} it is {@code java.class.path}.
     */
    static String classpath() {
        if (ContenderRun.class.getClassLoader() instanceof URLClassLoader loader) {
            return Stream.of(loader.getURLs()).map(ContenderRun::toPath).collect(Collectors.joining(File.pathSeparator));
        }
        return System.getProperty("java.class.path");
    }

    private static String toPath(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("not a file on the classpath: " + url, e);
        }
    }

    private static RedissonClient connect(String url) {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(2);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }

    private static ContenderRunException failure(String what, List<Child> children) {
        StringBuilder message = new StringBuilder(what);
        for (Child child : children) {
            child.kill();
            message.append("\n----- ").append(child.name).append(" (exit ")
                    .append(child.process.isAlive() ? "none, still alive" : child.process.exitValue())
                    .append(") -----\n").append(child.output());
        }
        return new ContenderRunException(message.toString());
    }

    /** A child JVM whose standard output and error go to a file, so no pipe can fill up and stall it. */
    private static final class Child {
        final String name;
        final Process process;
        final Path outputFile;

        private Child(String name, Process process, Path outputFile) {
            this.name = name;
            this.process = process;
            this.outputFile = outputFile;
        }

        static Child start(String name, List<String> command) {
            try {
                Path output = Files.createTempFile("distlock-contender-" + name + "-", ".log");
                Process process = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
                return new Child(name, process, output);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start contender " + name, e);
            }
        }

        String output() {
            try {
                return Files.readString(outputFile);
            } catch (IOException e) {
                return "(output unreadable: " + e + ")";
            }
        }

        /** Kills the JVM and anything it started, and waits until they are gone. */
        void kill() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            boolean interrupted = Thread.interrupted();
            try {
                while (true) {
                    try {
                        process.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS);
                        return;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        void deleteOutput() {
            try {
                Files.deleteIfExists(outputFile);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
