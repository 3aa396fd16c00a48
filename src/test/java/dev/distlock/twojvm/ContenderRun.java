package dev.distlock.twojvm;

import dev.distlock.testkit.ChildJvm;

import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

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

    /** A child halts itself this long after the run's timeout, in case its parent could not kill it. */
    private static final long CHILD_DEADLINE_MARGIN_MILLIS = 10_000;
    private static final long POLL_MILLIS = 10;

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
        List<ChildJvm> children = new ArrayList<>(jvms);
        try {
            for (int i = 1; i <= jvms; i++) {
                children.add(ChildJvm.start("jvm-" + i, Contender.class, arguments(prefix, "jvm-" + i)));
            }
            awaitReady(redis, prefix, children, deadline);
            redis.getBucket(ContenderKeys.go(prefix), StringCodec.INSTANCE).set("go");
            for (ChildJvm child : children) {
                long remaining = deadline - System.nanoTime();
                if (!child.process.waitFor(Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
                    throw failure("the run did not finish within " + timeout + "; killed the contenders", children);
                }
            }
            RBucket<String> counterBucket = redis.getBucket(ContenderKeys.counter(prefix), StringCodec.INSTANCE);
            String counter = counterBucket.get();
            List<RunOutcome.ChildReport> reports = new ArrayList<>();
            for (ChildJvm child : children) {
                String output = child.output();
                reports.add(new RunOutcome.ChildReport(child.name, child.process.exitValue(), output,
                        ContenderResult.find(output).orElse(null)));
            }
            return new RunOutcome(this, reports, counter == null ? 0 : Long.parseLong(counter));
        } finally {
            for (ChildJvm child : children) {
                child.kill();
            }
            for (ChildJvm child : children) {
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

    private void awaitReady(RedissonClient redis, String prefix, List<ChildJvm> children, long deadline)
            throws InterruptedException {
        while (redis.getAtomicLong(ContenderKeys.ready(prefix)).get() < jvms) {
            for (ChildJvm child : children) {
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

    private List<String> arguments(String prefix, String name) {
        List<String> command = new ArrayList<>();
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

    private static RedissonClient connect(String url) {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(2);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }

    private static ContenderRunException failure(String what, List<ChildJvm> children) {
        StringBuilder message = new StringBuilder(what);
        for (ChildJvm child : children) {
            child.kill();
            message.append("\n----- ").append(child.name).append(" (exit ")
                    .append(child.process.isAlive() ? "none, still alive" : child.process.exitValue())
                    .append(") -----\n").append(child.output());
        }
        return new ContenderRunException(message.toString());
    }
}
