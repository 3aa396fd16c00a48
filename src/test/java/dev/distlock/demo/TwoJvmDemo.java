package dev.distlock.demo;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import dev.distlock.twojvm.ContenderRun;
import dev.distlock.twojvm.Guard;
import dev.distlock.twojvm.RunOutcome;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Shows, with two real JVMs and a real Redis, what distlock is for. From the repository root:
 * <pre>{@code ./mvnw -q test-compile exec:java@demo}</pre>
 * Two JVMs with eight threads each increment one Redis counter by GET and SET: with distlock
 * around it, then with no lock, then with a lock that only guards its own JVM (what
 * {@code synchronized} gives). Uses {@code DISTLOCK_TEST_REDIS_URL} if set, else starts its own
 * Redis server on a free port.
 */
public final class TwoJvmDemo {

    private static final int JVMS = 2;
    private static final int THREADS = 8;
    private static final int ITERATIONS = 100;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    private static final List<Guard> GUARDS = List.of(Guard.DISTLOCK, Guard.NONE, Guard.LOCAL);

    private TwoJvmDemo() {
    }

    public static void main(String[] args) {
        // Redisson's start-up chatter would bury the report.
        Logger.getLogger("").setLevel(Level.WARNING);
        int exit = 1;
        RedisProcess server = null;
        try {
            String url = System.getenv(TestRedis.URL_VARIABLE);
            if (url == null || url.isBlank()) {
                int port = Ports.free();
                server = RedisProcess.start(port);
                url = "redis://127.0.0.1:" + port;
                System.out.println("Redis: embedded redis-server on port " + port);
            } else {
                System.out.println("Redis: " + url + " (from " + TestRedis.URL_VARIABLE + ")");
            }
            System.out.println("Each call: GET counter, pause " + ContenderRun.DEFAULT_PAUSE_MICROS
                    + " us, SET counter+1, while holding an 'inside' marker that only one caller may hold.");
            exit = report(url) ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace();
        } finally {
            stop(server);
        }
        System.exit(exit);
    }

    /** @return whether the run with distlock was exact */
    private static boolean report(String url) throws InterruptedException {
        boolean exact = true;
        for (Guard guard : GUARDS) {
            RunOutcome outcome = new ContenderRun(url, guard, JVMS, THREADS, ITERATIONS,
                    ContenderRun.DEFAULT_PAUSE_MICROS, RUN_TIMEOUT).run();
            System.out.println(guard.description() + ": " + outcome.summary());
            if (!outcome.allExitedCleanly()) {
                System.out.println(outcome.outputs());
            }
            if (guard == Guard.DISTLOCK) {
                exact = outcome.allExitedCleanly() && outcome.lostUpdates() == 0 && outcome.violations() == 0
                        && outcome.calls() == outcome.plannedCalls();
            }
        }
        System.out.println(exact
                ? "distlock kept the two JVMs apart: no overlap, no lost update."
                : "distlock FAILED to keep the two JVMs apart (see above).");
        return exact;
    }

    private static void stop(RedisProcess server) {
        if (server != null) {
            server.close();
        }
    }
}
