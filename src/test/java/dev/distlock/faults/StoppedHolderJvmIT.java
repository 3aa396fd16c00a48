package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.Processes;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Resp;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.distlock.faults.Faults.millisSince;
import static dev.distlock.faults.Faults.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 4: the holder's JVM is stopped (SIGSTOP, as a long GC pause or a frozen VM) past its
 * fixed lease. Another JVM takes the lock and writes; then the stopped JVM resumes and makes its
 * late write. With fencing, the store refuses it (its token is older); without, the twin shows the
 * late write overwriting the newer value. In both, the woken holder's release reports the loss.
 */
@Timeout(90)
class StoppedHolderJvmIT {

    private static final long LEASE_MILLIS = 1_000;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PARENT_VALUE = "parent";
    private static final long CHILD_LIMIT_MILLIS = 30_000;

    @Test
    void withFencingTheStoreRefusesTheLateWriteOfTheStoppedHolder() throws Exception {
        Outcome outcome = run(true);
        assertTrue(outcome.parentToken > outcome.childToken, "the later holder's token " + outcome.parentToken
                + " is larger than the stopped holder's " + outcome.childToken);
        assertEquals("WRITE accepted=false", outcome.childWrite, "the stopped holder's late write");
        assertEquals(PARENT_VALUE, outcome.storeValue, "the newer value stays");
        assertEquals(Long.toString(outcome.parentToken), outcome.storeFence);
        assertEquals("RELEASE LockLostException", outcome.childRelease);
        Faults.figure("sigstop-fenced", outcome + "; the store REFUSED the late write (token " + outcome.childToken
                + " < " + outcome.parentToken + "), value stays '" + outcome.storeValue + "'");
    }

    /** Twin without fencing: the same stop, and the stale holder's write overwrites the newer value. */
    @Test
    void withoutFencingTheLateWriteOverwritesTheNewerValue() throws Exception {
        Outcome outcome = run(false);
        assertEquals("WRITE accepted=true", outcome.childWrite);
        assertEquals(StoppedHolderChild.CHILD_VALUE, outcome.storeValue, "the stale holder overwrote the newer value");
        assertEquals("RELEASE LockLostException", outcome.childRelease);
        Faults.figure("sigstop-unfenced", outcome + "; the store ACCEPTED the late write: value '" + outcome.storeValue
                + "' overwrote '" + PARENT_VALUE + "'");
    }

    private record Outcome(boolean fenced, long childToken, long parentToken, long takenAfterStopMillis, long stoppedMillis,
                           String childWrite, String childRelease, String storeValue, String storeFence) {
        @Override
        public String toString() {
            return (fenced ? "fenced" : "unfenced") + ", lease " + LEASE_MILLIS + " ms: child JVM stopped (SIGSTOP) holding the lock"
                    + (fenced ? " with token " + childToken : "") + "; the test JVM took it " + seconds(takenAfterStopMillis)
                    + " after the stop" + (fenced ? " with token " + parentToken : "") + " and wrote; child resumed (SIGCONT) after "
                    + seconds(stoppedMillis) + "; its release: " + childRelease.substring("RELEASE ".length());
        }
    }

    private Outcome run(boolean fenced) throws Exception {
        int port = Ports.free();
        RedissonClient client = null;
        ChildJvm child = null;
        try (RedisProcess server = RedisProcess.start(port); Resp resp = Resp.connect(port, 5_000)) {
            client = Faults.client(port);
            RedissonClient parentClient = client;
            String prefix = TestRedis.uniquePrefix("sigstop");
            String store = prefix + ":store";
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();

            child = ChildJvm.start("stopped-holder", StoppedHolderChild.class, List.of(Integer.toString(port), prefix,
                    Boolean.toString(fenced), Long.toString(LEASE_MILLIS), store, Long.toString(ProcessHandle.current().pid())));
            String tokenLine = child.awaitLine("TOKEN ", CHILD_LIMIT_MILLIS);
            long childToken = fenced ? Long.parseLong(tokenLine.substring("TOKEN ".length())) : 0;
            assertTrue(resp.exists(EngineAccess.lockName(locks, StoppedHolderChild.KEY, false)), "the child holds the lock");

            signal(child, "STOP");
            long stoppedAt = System.nanoTime();
            awaitStopped(child);

            AtomicLong parentToken = new AtomicLong();
            AtomicLong takenAfterStop = new AtomicLong();
            DistributedLocks.LockCall call = locks.exclusive(StoppedHolderChild.KEY).waitTime(WAIT);
            if (fenced) {
                call.fenced();
            }
            call.run(() -> {
                takenAfterStop.set(millisSince(stoppedAt));
                OptionalLong token = locks.context().fencingToken();
                parentToken.set(token.orElse(0));
                assertTrue(FencedStore.write(parentClient, store, PARENT_VALUE, token),
                        "the new holder's write");
            });
            assertTrue(takenAfterStop.get() < LEASE_MILLIS + 3_000, "took the lock " + takenAfterStop + " ms after the stop");
            assertEquals('T', state(child), "the child was stopped all along");

            signal(child, "CONT");
            long stoppedMillis = millisSince(stoppedAt);
            child.process.getOutputStream().write("WRITE\n".getBytes(StandardCharsets.UTF_8));
            child.process.getOutputStream().flush();
            assertTrue(child.process.waitFor(CHILD_LIMIT_MILLIS, TimeUnit.MILLISECONDS), "the child did not finish:\n" + child.output());
            assertEquals(0, child.process.exitValue(), "the child failed:\n" + child.output());

            String output = child.output();
            return new Outcome(fenced, childToken, parentToken.get(), takenAfterStop.get(), stoppedMillis,
                    ChildJvm.onlyLine(output, "WRITE "), ChildJvm.onlyLine(output, "RELEASE "),
                    (String) resp.command("GET", FencedStore.valueKey(store)), (String) resp.command("GET", FencedStore.fenceKey(store)));
        } finally {
            if (child != null) {
                if (child.process.isAlive()) {
                    signal(child, "CONT");
                }
                child.kill();
                child.deleteOutput();
            }
            Faults.shutdown(client);
        }
    }

    private static void signal(ChildJvm child, String signal) {
        Processes.signal(child.process.pid(), signal);
    }

    /** The kernel stops every thread of the JVM soon after kill returns; waits until it has. */
    private static void awaitStopped(ChildJvm child) throws IOException, InterruptedException {
        long since = System.nanoTime();
        while (state(child) != 'T') {
            assertTrue(millisSince(since) < 2_000, "the child is not stopped, state " + state(child));
            Thread.sleep(5);
        }
    }

    /** The process state from /proc: 'T' when stopped. */
    private static char state(ChildJvm child) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(child.process.pid()), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
