package dev.distlock.internal.core;

import dev.distlock.DistlockException;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bookkeeping of locks and transactions, model-checked: which chain owns a call's locks
 * ({@link Chains}), the claims that calls and transactions make on a hold ({@link LockOwner},
 * {@link Hold}, {@link LockedCall}, {@link TransactionHolds}), and the release once the last claim
 * goes ({@link TransactionGuard}, {@link Releases}), under many interleavings of three threads, over
 * the in-memory backend and a model transaction manager ({@link ModelTransactions}).
 *
 * <p>The threads, on one key:
 * <ul>
 * <li>the <b>asynchronous caller</b> runs what an asynchronous {@code @Transactional} method does:
 * inside its frame a transaction begins, a locked call takes the key in it and returns, a chain
 * begun under {@code NOT_SUPPORTED} after it tries the key once (it must reenter: its suspended
 * transaction holds it), and the method returns with its transaction suspended, to be committed
 * elsewhere. Then, on the same
 * thread, an unrelated later call tries the key once;</li>
 * <li>the <b>second thread</b> resumes that transaction and tries the key once;</li>
 * <li>the <b>committer</b> commits it.</li>
 * </ul>
 *
 * <p>Properties: the nested chain reenters; neither the later call nor the second thread enters
 * while the transaction that holds the key is still open (they may time out, or enter once it has
 * completed); every lease the backend granted is given back exactly once and the backend holds
 * nothing at the end; no local queue outlives its callers; nobody waits forever.
 *
 * <p>The twin plants the old bookkeeping ({@link Chains.Ownership#THREAD_WIDE}: a transaction's
 * locks its chain's on every thread, a transaction noted open on a thread until it completes) and
 * shows that the check finds it. What the model leaves out is {@code HandoffModelCheckTest}'s; the
 * lease watch is closed for the same reason.
 */
@Timeout(300)
class TransactionModelCheckTest {

    /**
     * When this was written, 300 runs of the correct bookkeeping took about 140 s on two busy cores,
     * and the planted bug was found within the first 60 s; 150 runs keep the check near a minute.
     */
    private static final int INVOCATIONS = 150;
    private static final List<String> KEY = List.of("k");
    private static final long ANSWER_GRACE_MILLIS = 60_000;

    /** See {@code HandoffModelCheckTest#transformTheClassesTheRunsUse}. */
    @BeforeAll
    static void transformTheClassesTheRunsUse() {
        try {
            Lincheck.runConcurrentTest(1, () -> new Scenario(Chains.Ownership.CALL_STACK).run());
        } catch (LincheckAssertionError checkedBelow) {
            // found again, and reported, by the tests
        }
    }

    @Test
    void nobodyOutsideTheChainEntersWhileItsTransactionIsOpenNestedChainsReenterEveryLeaseGivenBackOnce() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> new Scenario(Chains.Ownership.CALL_STACK).run());
    }

    /**
     * The planted bug shows as a call outside the chain entering while the transaction is open, or
     * as a run that hangs (seen when this was written: Lincheck's report of it names no step). The
     * correct bookkeeping neither overlaps nor hangs in any of the runs above.
     */
    @Test
    void aTransactionsLocksTakenForTheThreadsOrEveryThreadsIsFound() {
        LincheckAssertionError found = assertThrows(LincheckAssertionError.class,
                () -> Lincheck.runConcurrentTest(INVOCATIONS, () -> new Scenario(Chains.Ownership.THREAD_WIDE).run()));
        String message = found.getMessage();
        assertTrue(message.contains(Scenario.ENTERED_WHILE_OPEN) || message.contains("has hung"), message);
    }

    /** One checked run; this thread is the asynchronous caller. */
    private static final class Scenario {
        static final String ENTERED_WHILE_OPEN = "entered the key while the transaction that holds it was open";

        private final ReleaseCountingBackend backend = new ReleaseCountingBackend();
        private final ModelTransactions transactions = new ModelTransactions();
        private final Releases releases;
        private final Acquisitions acquisitions;
        private final Chains chains;
        private final CountDownLatch handedOver = new CountDownLatch(1);
        private volatile ModelTransactions.Transaction suspended;
        private volatile String violation;

        Scenario(Chains.Ownership ownership) {
            LeaseWatch watch = new LeaseWatch("model-check");
            watch.close(); // see the class comment
            LockEvents events = new LockEvents(LockListener.NONE);
            releases = new Releases(backend.displayName(), LocalHandoff.DEFAULT, events, watch, ANSWER_GRACE_MILLIS,
                    HandoffOrder.CONFIRM_FIRST);
            acquisitions = new Acquisitions("model", backend, watch, releases, events, LeaseProof.NONE);
            TransactionGuard guard = new TransactionGuard(backend.displayName(), releases, events, false, ANSWER_GRACE_MILLIS);
            chains = new Chains(transactions, guard, ownership);
        }

        void run() {
            Thread second = new Thread(() -> {
                ModelTransactions.Transaction transaction = awaitHandOver();
                transactions.resume(transaction);
                tryOnce("the transaction's second thread", () -> mustBeCompleted(transaction, "the transaction's second thread"));
                transactions.suspend();
            });
            Thread committer = new Thread(() -> awaitHandOver().commit());
            second.start();
            committer.start();

            Object frame = chains.frameEntered(false);
            ModelTransactions.Transaction transaction = transactions.begin();
            boolean took = call("the asynchronous call", LockPolicy.WAIT_FOREVER, () -> { });
            check(took, "the asynchronous call did not get the key");
            Object notSupported = chains.frameEntered(true);
            transactions.suspend();
            boolean reentered = tryOnce("the chain nested under NOT_SUPPORTED", () -> { });
            check(reentered, "the chain nested under NOT_SUPPORTED did not reenter its transaction's key");
            transactions.resume(transaction);
            chains.frameLeft(notSupported);
            transactions.suspend(); // the method returned a stage: the transaction manager commits when it completes
            chains.frameLeft(frame);
            suspended = transaction;
            handedOver.countDown();
            tryOnce("the later call on the asynchronous caller's thread", () -> mustBeCompleted(transaction, "the later call"));

            join(second);
            join(committer);
            check(violation == null, String.valueOf(violation));
            String releaseProblem = backend.releaseProblem();
            check(releaseProblem == null, String.valueOf(releaseProblem));
            check(releases.localQueues.size() == 0, "a local queue outlived its callers");
        }

        private ModelTransactions.Transaction awaitHandOver() {
            try {
                handedOver.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return suspended;
        }

        private void mustBeCompleted(ModelTransactions.Transaction transaction, String who) {
            if (!transaction.isCompleted()) {
                violation = who + " " + ENTERED_WHILE_OPEN;
            }
        }

        /** A locked call that tries once: whether it ran. */
        private boolean tryOnce(String site, Runnable body) {
            return call(site, 0, body);
        }

        /** One locked call, as {@link LockExecutor} makes it: whether it ran. */
        private boolean call(String site, long waitMillis, Runnable body) {
            LockPolicy policy = new LockPolicy(site, LockMode.EXCLUSIVE, waitMillis, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL);
            Chains.Entry entry = chains.enter();
            List<Hold> taken;
            try {
                taken = acquisitions.acquireAll(entry.owner(), policy, KEY, null);
            } catch (LockTimeoutException timedOut) {
                chains.returned(entry);
                return false;
            }
            TransactionHolds inTransaction = chains.claim(entry, taken);
            LockedCall call = new LockedCall(entry.owner(), taken, entry.outer(), inTransaction, releases, ReturnKind.VALUE,
                    null, null);
            chains.running(entry, call);
            try {
                body.run();
            } finally {
                chains.returned(entry);
            }
            DistlockException failure = releases.await(call.release());
            if (failure != null) {
                violation = site + " was told of a failure that did not happen: " + failure;
            }
            return true;
        }

        private static void join(Thread thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        private static void check(boolean property, String violation) {
            if (!property) {
                throw new AssertionError(violation);
            }
        }
    }
}
