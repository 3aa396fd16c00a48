package dev.distlock.transactions;

import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Semantics 6, cell by cell, on a real transaction manager (Narayana, with its own
 * {@code @Transactional}) and a real Redis: where the lock is (on the transactional method, on its
 * caller, on a callee, on both with the same key or with different keys) × where the transaction
 * comes from (none; begun by the caller, by the method, joined; {@code REQUIRES_NEW},
 * {@code NOT_SUPPORTED}, {@code MANDATORY} inside; {@code NEVER}; a returned stage) × how it ends
 * (commit, rollback-only, an exception, a timeout rolled back by the reaper's thread, a lease lost).
 *
 * <p>In every cell one rule is asserted: <b>a lock is held from its acquisition until the method
 * has returned and every transaction that the locked work ran in has completed, then released
 * exactly once; nothing commits after its lease was lost; no call waits for a lock its own
 * transaction holds.</b> How:
 * <ul>
 * <li>held: each locked call is a region, open from the acquisition until its body is done and
 * each transaction its work ran in (seen by every piece of work inside it) has completed. A
 * {@link Contender} in this JVM queues for each key as soon as it is taken; it gets the key the
 * moment the cell's chain gives it up, and fails the cell if a region of that key is still open.</li>
 * <li>released exactly once: the listener counts as many releases as acquisitions of each key, no
 * loss, and no local queue is left.</li>
 * <li>never waits for its own: after the work, the cell calls the first key again with
 * {@code waitTime = 0} — directly, under {@code NOT_SUPPORTED} and under {@code REQUIRES_NEW} —
 * still in the caller's transaction (doomed, when an exception passed through it). A timeout there
 * is only right if the chain no longer held the key: the contender must then get it at once.</li>
 * <li>nothing commits after a loss: the key is deleted from Redis in the innermost work; every
 * transaction the locked work ran in must then roll back.</li>
 * </ul>
 * Where each cell is documented: docs/transactions.md.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionMatrixTest {

    /** Where the locks are, over three levels: a caller, the method with the transaction attribute, a callee. */
    enum Placement {
        METHOD, CALLER, CALLEE, BOTH_SAME_KEY, BOTH_DIFFERENT_KEYS
    }

    /** Where the transaction comes from: begun by the test before the caller, and the method's attribute. */
    enum Shape {
        NONE(false, null),
        BEGUN_BY_CALLER(true, null),
        BEGUN_BY_METHOD(false, "REQUIRED"),
        JOINED(true, "REQUIRED"),
        REQUIRES_NEW_INSIDE(true, "REQUIRES_NEW"),
        NOT_SUPPORTED_INSIDE(true, "NOT_SUPPORTED"),
        MANDATORY_INSIDE(true, "MANDATORY"),
        NEVER(false, "NEVER"),
        STAGE(false, null),
        STAGE_IN_TRANSACTION(true, null),
        /** Begun by the method's bean, transactional through a stereotype. */
        BEGUN_BY_STEREOTYPE(false, "STEREOTYPE"),
        /** Begun by the method's bean, transactional through its superclass. */
        BEGUN_BY_SUPERCLASS(false, "SUPERCLASS"),
        /** {@code @Transactional} on the bean's interface, which CDI does not honour: no transaction. */
        INTERFACE(false, "INTERFACE"),
        /** Begun by a {@code @Transactional} method that returns a stage: it ends when the stage completes. */
        ASYNCHRONOUS(false, "ASYNCHRONOUS");

        final boolean callerBegins;
        final String attribute;

        Shape(boolean callerBegins, String attribute) {
            this.callerBegins = callerBegins;
            this.attribute = attribute;
        }

        /**
         * Whether the locked work goes on after the method returned, outside the caller's chain (a
         * stage, a transaction the manager ends when it completes): a later call of the caller's is
         * then another caller, which must not enter while a region is open.
         */
        boolean leavesTheCallersChain() {
            return this == STAGE || this == ASYNCHRONOUS;
        }

        /** Whether the cell's work runs in a transaction that the route begins; {@code null} when the shape does not say. */
        Boolean routeBegins() {
            return switch (this) {
                case BEGUN_BY_STEREOTYPE, BEGUN_BY_SUPERCLASS, ASYNCHRONOUS -> true;
                case INTERFACE -> false;
                default -> null;
            };
        }
    }

    enum Outcome {
        COMMIT, ROLLBACK_ONLY, EXCEPTION, TIMED_OUT, LEASE_LOST
    }

    record Cell(Placement placement, Shape shape, Outcome outcome) {
        @Override
        public String toString() {
            return "lock on " + placement + ", transaction " + shape + ", ends " + outcome;
        }
    }

    static Stream<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        List<Shape> plainShapes = List.of(Shape.NONE, Shape.BEGUN_BY_CALLER, Shape.BEGUN_BY_METHOD, Shape.JOINED,
                Shape.REQUIRES_NEW_INSIDE, Shape.NOT_SUPPORTED_INSIDE, Shape.MANDATORY_INSIDE, Shape.NEVER);
        for (Placement placement : Placement.values()) {
            for (Shape shape : plainShapes) {
                for (Outcome outcome : List.of(Outcome.COMMIT, Outcome.ROLLBACK_ONLY, Outcome.EXCEPTION)) {
                    cells.add(new Cell(placement, shape, outcome));
                }
            }
            for (Shape shape : List.of(Shape.BEGUN_BY_CALLER, Shape.BEGUN_BY_METHOD)) {
                cells.add(new Cell(placement, shape, Outcome.TIMED_OUT));
            }
            for (Shape shape : List.of(Shape.BEGUN_BY_CALLER, Shape.BEGUN_BY_METHOD, Shape.JOINED, Shape.REQUIRES_NEW_INSIDE,
                    Shape.NOT_SUPPORTED_INSIDE)) {
                cells.add(new Cell(placement, shape, Outcome.LEASE_LOST));
            }
        }
        for (Shape shape : List.of(Shape.STAGE, Shape.STAGE_IN_TRANSACTION)) {
            for (Outcome outcome : List.of(Outcome.COMMIT, Outcome.ROLLBACK_ONLY, Outcome.EXCEPTION)) {
                cells.add(new Cell(Placement.CALLER, shape, outcome));
            }
        }
        for (Placement placement : Placement.values()) {
            for (Shape shape : List.of(Shape.BEGUN_BY_STEREOTYPE, Shape.BEGUN_BY_SUPERCLASS, Shape.INTERFACE)) {
                for (Outcome outcome : List.of(Outcome.COMMIT, Outcome.ROLLBACK_ONLY, Outcome.EXCEPTION, Outcome.LEASE_LOST)) {
                    if (shape != Shape.INTERFACE || outcome != Outcome.LEASE_LOST) {
                        cells.add(new Cell(placement, shape, outcome));
                    }
                }
            }
        }
        for (Placement placement : List.of(Placement.METHOD, Placement.CALLEE)) {
            for (Outcome outcome : List.of(Outcome.COMMIT, Outcome.ROLLBACK_ONLY, Outcome.EXCEPTION, Outcome.LEASE_LOST)) {
                cells.add(new Cell(placement, Shape.ASYNCHRONOUS, outcome));
            }
        }
        return cells.stream();
    }

    /** Counts what the engine tells of each lock. */
    @ApplicationScoped
    public static class Counting implements LockListener {
        final Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> released = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> lost = new ConcurrentHashMap<>();

        @Override
        public void acquired(String key, LockMode mode, long waitNanos) {
            acquired.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void released(String key, LockMode mode, long heldNanos) {
            released.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void lost(String key, LockMode mode) {
            lost.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        int acquisitions(String name) {
            return of(acquired, name);
        }

        int releases(String name) {
            return of(released, name);
        }

        int losses(String name) {
            return of(lost, name);
        }

        private static int of(Map<String, AtomicInteger> counts, String name) {
            AtomicInteger count = counts.get(name);
            return count == null ? 0 : count.get();
        }
    }

    /** The business failure a cell's work throws. */
    static final class Business extends RuntimeException {
        Business() {
            super("business failure");
        }
    }

    private final AtomicInteger cellNumber = new AtomicInteger();
    private DistlockWeld weld;
    private Steps steps;
    private DistributedLocks locks;
    private Counting counting;
    private RedissonClient probe;
    private String prefix;

    @BeforeAll
    void start() {
        prefix = TestRedis.uniquePrefix("matrix");
        weld = Narayana.start(Map.of("distlock.key-prefix", prefix), Stream.concat(Stream.of(Steps.class, Counting.class),
                Stream.of(RoutedSteps.BEANS)).toArray(Class<?>[]::new));
        steps = weld.bean(Steps.class);
        locks = weld.bean(DistributedLocks.class);
        counting = weld.bean(Counting.class);
        probe = TestRedis.newClient();
    }

    @AfterAll
    void stop() {
        weld.close();
        probe.shutdown();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cells")
    void theLockOutlivesEveryTransactionItsWorkRanIn(Cell cell) throws Exception {
        String a = "c" + cellNumber.incrementAndGet() + "a";
        String b = a.substring(0, a.length() - 1) + "b";
        Regions regions = new Regions(locks, cell.outcome != Outcome.LEASE_LOST);
        Keys keys = Keys.of(cell.placement, a, b);
        List<String> lockNames = new ArrayList<>();
        for (String key : keys.all()) {
            lockNames.add(EngineAccess.lockName(locks, key, false));
        }
        if (cell.outcome == Outcome.TIMED_OUT) {
            Narayana.transactionManager().setTransactionTimeout(1);
        }
        try {
            Steps.Step work = () -> innermost(cell.outcome, regions, lockNames);
            Steps.Step structure = structure(cell, keys, regions, work);
            Steps.Step caller = () -> {
                try {
                    structure.run();
                } catch (Exception | Error failure) {
                    regions.failures.add(failure);
                }
                if (cell.outcome != Outcome.TIMED_OUT && cell.outcome != Outcome.LEASE_LOST) {
                    callAgain(keys.first(), regions, cell.shape.leavesTheCallersChain());
                }
                if (cell.outcome == Outcome.ROLLBACK_ONLY && cell.shape.callerBegins && Narayana.current() != null) {
                    Narayana.transactionManager().setRollbackOnly();
                }
                return null;
            };
            try {
                if (cell.shape.callerBegins) {
                    steps.required(caller);
                } else {
                    caller.run();
                }
            } catch (Exception | Error failure) {
                regions.failures.add(failure);
            }
        } finally {
            Narayana.transactionManager().setTransactionTimeout(0);
        }
        regions.awaitStages();
        for (Map.Entry<String, Contender> contender : regions.contenders.entrySet()) {
            assertNull(contender.getValue().overlap(), () -> "another caller got " + contender.getKey() + " while " + cell
                    + " still had a region open; failures: " + regions.failures);
        }
        assertTrue(regions.waitedForItsOwn.isEmpty(), () -> "a call waited for a lock its own chain holds: " + regions.waitedForItsOwn);
        assertTrue(regions.enteredByAnother.isEmpty(), () -> "a later caller entered a region still open: " + regions.enteredByAnother);
        if (cell.shape.routeBegins() != null) {
            boolean ranInATransaction = regions.all.stream().anyMatch(region -> !region.transactions.isEmpty());
            assertEquals(cell.shape.routeBegins(), ranInATransaction, () -> "the work of " + cell
                    + (ranInATransaction ? " ran in a transaction" : " ran in no transaction") + "; failures: " + regions.failures);
        }
        if (cell.outcome == Outcome.LEASE_LOST) {
            assertNothingCommittedAfterTheLoss(regions, cell);
        } else {
            assertEachReleasedOnce(lockNames, cell);
        }
        assertFalse(regions.all.isEmpty(), () -> "no locked work ran in " + cell + ": " + regions.failures);
        for (Throwable failure : regions.failures) {
            if (!expected(failure, cell.outcome)) {
                fail("unexpected in " + cell + ": " + failure, failure);
            }
        }
    }

    /** What the caller may see of the way a cell ends: nothing when it commits. */
    private static boolean expected(Throwable failure, Outcome outcome) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            boolean expected = switch (outcome) {
                case COMMIT -> false;
                case EXCEPTION -> cause instanceof Business;
                case ROLLBACK_ONLY, TIMED_OUT -> cause instanceof jakarta.transaction.RollbackException
                        || cause instanceof jakarta.transaction.TransactionalException;
                case LEASE_LOST -> cause instanceof dev.distlock.LockLostException
                        || cause instanceof jakarta.transaction.RollbackException
                        || cause instanceof jakarta.transaction.TransactionalException;
            };
            if (expected) {
                return true;
            }
        }
        return false;
    }

    /** The three levels: the caller, the method with the shape's attribute, the callee; each locked where the placement says. */
    private Steps.Step structure(Cell cell, Keys keys, Regions regions, Steps.Step work) {
        if (cell.shape == Shape.STAGE || cell.shape == Shape.STAGE_IN_TRANSACTION) {
            return () -> steps.lockedStage(keys.caller, regions.stage(keys.caller, () -> {
                CompletableFuture<Object> stage = new CompletableFuture<>();
                Thread completing = new Thread(() -> {
                    try {
                        Thread.sleep(50);
                        stage.complete(work.run());
                    } catch (Exception | Error e) {
                        stage.completeExceptionally(e);
                    }
                }, "completes-stage");
                completing.start();
                return stage;
            }));
        }
        Steps.Step callee = keys.callee == null ? work : () -> steps.locked(keys.callee, regions.region(keys.callee, work));
        if (cell.shape == Shape.ASYNCHRONOUS) {
            return asynchronous(keys, regions, callee);
        }
        Steps.Step method = transactional(cell.shape.attribute, keys.method, regions, callee);
        Steps.Step callerBody = () -> {
            Object result = method.run();
            regions.touch(); // the caller's work after the method returned
            return result;
        };
        return keys.caller == null ? callerBody : () -> steps.locked(keys.caller, regions.region(keys.caller, callerBody));
    }

    /**
     * The method is {@code @Transactional} and returns a stage that a thread completes 50 ms later:
     * the transaction manager suspends the transaction as it returns and ends it then. The cell's
     * work runs in the transaction, on the caller's thread, before the method returns.
     */
    private Steps.Step asynchronous(Keys keys, Regions regions, Steps.Step inside) {
        RoutedSteps.Later later = weld.bean(RoutedSteps.Later.class);
        Steps.Step body = () -> {
            inside.run();
            CompletableFuture<Object> stage = new CompletableFuture<>();
            Thread completing = new Thread(() -> {
                try {
                    Thread.sleep(50);
                    stage.complete("done");
                } catch (InterruptedException e) {
                    stage.completeExceptionally(e);
                }
            }, "completes-stage");
            completing.start();
            return stage;
        };
        if (keys.method == null) {
            return () -> regions.awaited(later.required(body));
        }
        return () -> regions.awaited(later.lockedRequired(keys.method, regions.stage(keys.method, body)));
    }

    private Steps.Step transactional(String attribute, String lockedKey, Regions regions, Steps.Step inside) {
        RoutedSteps.Routed routed = routed(attribute);
        if (routed != null) {
            return lockedKey == null ? () -> routed.required(inside) : () -> routed.lockedRequired(lockedKey, regions.region(lockedKey, inside));
        }
        if (lockedKey == null) {
            return () -> switch (attribute == null ? "" : attribute) {
                case "REQUIRED" -> steps.required(inside);
                case "REQUIRES_NEW" -> steps.requiresNew(inside);
                case "NOT_SUPPORTED" -> steps.notSupported(inside);
                case "MANDATORY" -> steps.mandatory(inside);
                case "NEVER" -> steps.never(inside);
                default -> steps.plain(inside);
            };
        }
        Steps.Step body = regions.region(lockedKey, inside);
        return () -> switch (attribute == null ? "" : attribute) {
            case "REQUIRED" -> steps.lockedRequired(lockedKey, body);
            case "REQUIRES_NEW" -> steps.lockedRequiresNew(lockedKey, body);
            case "NOT_SUPPORTED" -> steps.lockedNotSupported(lockedKey, body);
            case "MANDATORY" -> steps.lockedMandatory(lockedKey, body);
            case "NEVER" -> steps.lockedNever(lockedKey, body);
            default -> steps.locked(lockedKey, body);
        };
    }

    /** The bean that makes its methods transactional by the route the attribute names; {@code null} for the attributes of {@link Steps}. */
    private RoutedSteps.Routed routed(String attribute) {
        return switch (attribute == null ? "" : attribute) {
            case "STEREOTYPE" -> weld.bean(RoutedSteps.ByStereotype.class);
            case "SUPERCLASS" -> weld.bean(RoutedSteps.BySuperclass.class);
            case "INTERFACE" -> weld.bean(RoutedSteps.ByInterface.class);
            default -> null;
        };
    }

    /** The innermost work: it ends the way the cell says. */
    private Object innermost(Outcome outcome, Regions regions, List<String> lockNames) throws Exception {
        regions.touch();
        switch (outcome) {
            case ROLLBACK_ONLY -> {
                if (Narayana.current() != null) {
                    Narayana.transactionManager().setRollbackOnly();
                }
            }
            case EXCEPTION -> throw new Business();
            case TIMED_OUT -> Thread.sleep(1_400); // the reaper rolls the transaction back after 1 s, on its thread
            case LEASE_LOST -> probe.getKeys().delete(lockNames.toArray(String[]::new));
            default -> {
            }
        }
        return "done";
    }

    /**
     * The catch block's call: the first key again, with waitTime 0, directly, under NOT_SUPPORTED
     * and under REQUIRES_NEW. Where the locked work left the caller's chain, it is another caller's.
     */
    private void callAgain(String key, Regions regions, boolean anotherCaller) {
        List<Steps.Step> ways = List.of(
                () -> steps.reenter(key, () -> "again"),
                () -> steps.notSupported(() -> steps.reenter(key, () -> "again")),
                () -> steps.requiresNew(() -> steps.reenter(key, () -> "again")));
        for (int i = 0; i < ways.size(); i++) {
            try {
                ways.get(i).run();
                String open = anotherCaller ? regions.stillOpen(key) : null;
                if (open != null) {
                    regions.enteredByAnother.add("call " + i + " on " + key + " while " + open);
                }
            } catch (LockTimeoutException timedOut) {
                // Only right when the chain had given the key up: then the contender has it, or gets it now.
                Contender contender = regions.contenders.get(key);
                try {
                    if (contender == null || !contender.entersWithin(Duration.ofSeconds(2))) {
                        regions.waitedForItsOwn.add("call " + i + " on " + key + ": " + timedOut.getMessage());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            } catch (Exception | Error other) {
                regions.failures.add(other);
            }
        }
    }

    private void assertEachReleasedOnce(List<String> lockNames, Cell cell) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (String name : lockNames) {
            while (System.nanoTime() < deadline && (counting.acquisitions(name) != counting.releases(name)
                    || probe.getLock(name).isLocked())) {
                Thread.sleep(5);
            }
            assertEquals(counting.acquisitions(name), counting.releases(name),
                    () -> name + ": acquisitions and releases differ in " + cell);
            assertEquals(0, counting.losses(name), () -> name + " reported lost in " + cell);
            assertFalse(probe.getLock(name).isLocked(), () -> name + " still held after " + cell);
        }
        while (System.nanoTime() < deadline && EngineAccess.executor(locks).localQueueCount() != 0) {
            Thread.sleep(5);
        }
        assertEquals(0, EngineAccess.executor(locks).localQueueCount(), () -> "a local queue outlived " + cell);
    }

    private static void assertNothingCommittedAfterTheLoss(Regions regions, Cell cell) throws SystemException {
        for (Region region : regions.all) {
            for (Transaction transaction : region.transactions) {
                assertEquals(Status.STATUS_ROLLEDBACK, transaction.getStatus(), () -> "a transaction that ran locked work on "
                        + region.key + " ended " + transaction + " after the lease was lost, in " + cell);
            }
        }
    }

    /** The keys of a cell's three levels, {@code null} where a level is not locked. */
    record Keys(String caller, String method, String callee) {
        static Keys of(Placement placement, String a, String b) {
            return switch (placement) {
                case METHOD -> new Keys(null, a, null);
                case CALLER -> new Keys(a, null, null);
                case CALLEE -> new Keys(null, null, a);
                case BOTH_SAME_KEY -> new Keys(a, null, a);
                case BOTH_DIFFERENT_KEYS -> new Keys(a, null, b);
            };
        }

        String first() {
            return caller != null ? caller : method != null ? method : callee;
        }

        Set<String> all() {
            Set<String> all = new LinkedHashSet<>();
            for (String key : new String[] {caller, method, callee}) {
                if (key != null) {
                    all.add(key);
                }
            }
            return all;
        }
    }

    /** One locked call's guarded region: until its body is done and each transaction its work ran in has completed. */
    static final class Region {
        final String key;
        final Set<Transaction> transactions = ConcurrentHashMap.newKeySet();
        volatile boolean bodyDone;

        Region(String key) {
            this.key = key;
        }

        /** What of the region is still open; {@code null} when nothing is. */
        String stillOpen() {
            if (!bodyDone) {
                return "the locked call on " + key + " is still running";
            }
            for (Transaction transaction : transactions) {
                String running = TransactionShapesTest.stillRunning(transaction);
                if (running != null) {
                    return "the locked work on " + key + " ran in " + running;
                }
            }
            return null;
        }
    }

    /** A cell's regions, the contender for each key, and what went wrong. */
    static final class Regions {
        final List<Region> all = new CopyOnWriteArrayList<>();
        final Map<String, Contender> contenders = new LinkedHashMap<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<String> waitedForItsOwn = new CopyOnWriteArrayList<>();
        final List<String> enteredByAnother = new CopyOnWriteArrayList<>();
        private final List<CompletableFuture<?>> stages = new CopyOnWriteArrayList<>();
        private final Deque<Region> open = new ArrayDeque<>();
        private final DistributedLocks locks;
        private final boolean contend;

        Regions(DistributedLocks locks, boolean contend) {
            this.locks = locks;
            this.contend = contend;
        }

        /** Runs {@code body} as a locked call's region on {@code key}. */
        Steps.Step region(String key, Steps.Step body) {
            return () -> {
                Region region = opened(key);
                try {
                    return body.run();
                } finally {
                    open.pop();
                    region.bodyDone = true;
                }
            };
        }

        /** A locked call that returns a stage: its region's body is done when the stage completes. */
        Steps.Step stage(String key, Steps.Step body) {
            return () -> {
                Region region = opened(key);
                CompletableFuture<?> stage;
                try {
                    stage = (CompletableFuture<?>) body.run();
                } catch (Exception | Error failure) {
                    region.bodyDone = true; // no stage: the method threw
                    throw failure;
                } finally {
                    open.pop();
                }
                stages.add(stage.whenComplete((value, error) -> region.bodyDone = true));
                return stage;
            };
        }

        private Region opened(String key) {
            Region region = new Region(key);
            all.add(region);
            open.push(region);
            touch();
            if (contend && !contenders.containsKey(key)) {
                contenders.put(key, new Contender(locks, key, () -> stillOpen(key)));
            }
            return region;
        }

        /** Work runs here: the transaction it runs in is one that every open region's work ran in. */
        void touch() {
            Transaction transaction = Narayana.current();
            if (transaction != null) {
                for (Region region : open) {
                    region.transactions.add(transaction);
                }
            }
        }

        String stillOpen(String key) {
            for (Region region : all) {
                if (region.key.equals(key)) {
                    String open = region.stillOpen();
                    if (open != null) {
                        return open;
                    }
                }
            }
            return null;
        }

        /** A stage the cell's caller got back: the cell waits for it before its checks. */
        Object awaited(CompletionStage<?> stage) {
            stages.add(stage.toCompletableFuture());
            return stage;
        }

        void awaitStages() {
            for (CompletableFuture<?> stage : stages) {
                try {
                    stage.get();
                } catch (Exception ignored) {
                    // the cell's outcome; what matters is that it completed
                }
            }
        }
    }
}
