package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.ForcedRelease;
import dev.distlock.LockInfo;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Resp;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock stuck on a live holder in another JVM (it keeps renewing its lease and never returns),
 * ended from this one with {@link DistributedLocks#forceRelease}, on a real Redis. The holder's
 * engine finds the lock lost at its next check and tells its listener; its work's late write
 * goes to a store that checks fencing tokens; its release throws {@code LockLostException}.
 *
 * <p>Fenced: {@code ifFenced()} ends it, this JVM takes the lock with a larger token and writes,
 * and the store refuses the old holder's late write. Its twin, unfenced: {@code ifFenced()} is
 * refused and the lock stays held (this JVM cannot take it); acknowledged, it is ended, and the
 * old holder's late write overwrites the newer value: what the acknowledgement accepts.
 */
@Timeout(120)
class ForcedReleaseJvmIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long CHILD_LIMIT_MILLIS = 40_000;

    @Test
    void aFencedLockStuckInAnotherJvmIsEndedAndItsLateWriteRefused() throws Exception {
        try (Run run = Run.start(true)) {
            LockInfo seen = run.inspect();
            assertEquals(LockInfo.Stored.State.HELD, seen.store().state(), seen.toString());
            assertFalse(seen.store().heldByThisJvm(), "the other JVM's holder taken for this one's: " + seen);

            List<String> ended = run.locks.forceRelease(StoppedHolderChild.KEY, ForcedRelease.ifFenced());

            assertEquals(seen.store().holders(), ended, "the acquisition listed is the one ended");
            long token = run.takeAndWrite(true);
            assertTrue(token > run.childToken, "the next holder's token " + token + " after the ended one's " + run.childToken);
            assertTrue(run.awaitLine("LOST ").endsWith(":" + StoppedHolderChild.KEY), "the holder's listener was told");
            Run.Outcome outcome = run.letTheChildWrite();
            assertEquals("WRITE accepted=false", outcome.write(), "the ended holder's late write");
            assertEquals("parent", outcome.value(), "the newer value stays");
            assertEquals("RELEASE LockLostException", outcome.release());
        }
    }

    @Test
    void anUnfencedLockIsEndedOnlyWithAnAcknowledgementAndItsLateWriteThenLands() throws Exception {
        try (Run run = Run.start(false)) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> run.locks.forceRelease(StoppedHolderChild.KEY, ForcedRelease.ifFenced()));
            assertTrue(refused.getMessage().contains("fencing"), refused.getMessage());
            assertThrows(LockTimeoutException.class, () -> run.locks.exclusive(StoppedHolderChild.KEY).waitTime(Duration.ZERO).run(() -> { }),
                    "the refused release left the lock held");

            List<String> ended = run.locks.forceRelease(StoppedHolderChild.KEY, ForcedRelease.acknowledging("ForcedReleaseJvmIT: the holder hangs"));

            assertEquals(1, ended.size(), "one acquisition ended: " + ended);
            run.takeAndWrite(false);
            assertTrue(run.awaitLine("LOST ").endsWith(":" + StoppedHolderChild.KEY), "the holder's listener was told");
            Run.Outcome outcome = run.letTheChildWrite();
            assertEquals("WRITE accepted=true", outcome.write(), "without a token nothing refuses the late write");
            assertEquals(StoppedHolderChild.CHILD_VALUE, outcome.value(), "the late write overwrote the newer value");
            assertEquals("RELEASE LockLostException", outcome.release());
        }
    }

    /** Redis, this JVM's locks, and the child holding the lock with the watchdog's lease. */
    private static final class Run implements AutoCloseable {
        final RedisProcess server;
        final RedissonClient client;
        final Resp resp;
        final DistributedLocks locks;
        final ChildJvm child;
        final String store;
        final long childToken;

        record Outcome(String write, String release, String value) {
        }

        private Run(RedisProcess server, RedissonClient client, Resp resp, DistributedLocks locks, ChildJvm child, String store,
                    long childToken) {
            this.server = server;
            this.client = client;
            this.resp = resp;
            this.locks = locks;
            this.child = child;
            this.store = store;
            this.childToken = childToken;
        }

        static Run start(boolean fenced) throws Exception {
            int port = Ports.free();
            RedisProcess server = RedisProcess.start(port);
            RedissonClient client = Faults.client(port);
            Resp resp = Resp.connect(port, 5_000);
            String prefix = TestRedis.uniquePrefix("forced");
            String store = prefix + ":store";
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();
            ChildJvm child = ChildJvm.start("stuck-holder", StoppedHolderChild.class, List.of(Integer.toString(port), prefix,
                    Boolean.toString(fenced), "0", store, Long.toString(ProcessHandle.current().pid())));
            Run run = new Run(server, client, resp, locks, child, store, 0);
            try {
                String tokenLine = run.awaitLine("TOKEN ");
                long token = fenced ? Long.parseLong(tokenLine.substring("TOKEN ".length())) : 0;
                return new Run(server, client, resp, locks, child, store, token);
            } catch (Throwable e) {
                run.close();
                throw e;
            }
        }

        LockInfo inspect() {
            return locks.inspect(StoppedHolderChild.KEY).stream().filter(info -> info.key().equals(StoppedHolderChild.KEY))
                    .findFirst().orElseThrow(() -> new AssertionError("the child's lock is not listed: " + locks.inspect("")));
        }

        /** Takes the lock here, as the next holder, and writes {@code parent} with its token; returns the token. */
        long takeAndWrite(boolean fenced) {
            AtomicLong token = new AtomicLong();
            DistributedLocks.LockCall call = locks.exclusive(StoppedHolderChild.KEY).waitTime(WAIT);
            if (fenced) {
                call.fenced();
            }
            call.run(() -> {
                OptionalLong mine = locks.context().fencingToken();
                token.set(mine.orElse(0));
                assertTrue(FencedStore.write(client, store, "parent", mine), "the next holder's write");
            });
            return token.get();
        }

        Outcome letTheChildWrite() throws Exception {
            child.process.getOutputStream().write("WRITE\n".getBytes(StandardCharsets.UTF_8));
            child.process.getOutputStream().flush();
            assertTrue(child.process.waitFor(CHILD_LIMIT_MILLIS, TimeUnit.MILLISECONDS), "the child did not finish:\n" + child.output());
            assertEquals(0, child.process.exitValue(), "the child failed:\n" + child.output());
            String output = child.output();
            return new Outcome(ChildJvm.onlyLine(output, "WRITE "), ChildJvm.onlyLine(output, "RELEASE "),
                    (String) resp.command("GET", FencedStore.valueKey(store)));
        }

        String awaitLine(String start) throws InterruptedException {
            return child.awaitLine(start, CHILD_LIMIT_MILLIS);
        }

        @Override
        public void close() throws Exception {
            child.kill();
            child.deleteOutput();
            locks.close();
            Faults.shutdown(client);
            resp.close();
            server.close();
        }
    }
}
