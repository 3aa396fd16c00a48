package dev.distlock.jdbc;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.LockBackend.Later;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Grant decisions ({@link LockTables#grant}) asked on a caller's behalf, each waited for at most the
 * answer grace, and the give-back of a grant whose answer the caller never had.
 *
 * <p>A grant's answer can be lost after the database wrote it: a commit that went through and then
 * failed on the way back (the connection broke: SQLState 08006), a statement in auto-commit mode that
 * failed once sent, an answer that came after the caller stopped waiting, a caller interrupted. The
 * holder's row it wrote would keep the lock, held by nobody, for a whole lease. So whenever the row
 * may have been written and the caller is not given the lease, the row is deleted: by the holder id
 * of that acquisition, which no other acquisition ever uses, so that no other holder's row can go
 * with it. At once, before the caller is told (within the answer grace), and then again at growing
 * intervals until its lease would have ended, unless a delete found it: a commit may reach the
 * database after the first delete, and a database that does not answer now may answer later.
 *
 * <p>A grant that failed before it could write (no connection, a statement of its transaction that
 * failed before the commit was sent) has nothing to give back: the caller is told at once.
 */
final class Grants {

    /** The first pause before a lost grant's row is deleted again; doubled each time up to the longest. */
    private static final long FIRST_PAUSE_MILLIS = 250;
    private static final long LONGEST_PAUSE_MILLIS = 8_000;
    /** How long after its lease a lost grant's row is still looked for: the database's clock may run ahead. */
    private static final long PAST_THE_LEASE_MILLIS = 1_000;

    private final JdbcBackend backend;
    private final JdbcTransactions transactions;
    private final long answerGraceMillis;
    /** {@code true} but in the twin of the lost-answer tests, which shows what the give-back prevents. */
    private final boolean givesBackLostAnswers;
    private volatile Later later = (task, delayNanos) -> { };
    private volatile boolean closed;

    Grants(JdbcBackend backend, JdbcTransactions transactions, long answerGraceMillis, boolean givesBackLostAnswers) {
        this.backend = backend;
        this.transactions = transactions;
        this.answerGraceMillis = answerGraceMillis;
        this.givesBackLostAnswers = givesBackLostAnswers;
    }

    void bind(Later later) {
        this.later = later;
    }

    void close() {
        closed = true;
    }

    /**
     * One grant decision, waited for at most the answer grace.
     *
     * @return the token (0 unfenced) if granted, {@code null} if another holder excludes this one
     * @throws LockServiceUnavailableException naming the lock when the database failed or did not answer
     *                                         in time; a grant it may have written is given back
     * @throws InterruptedException            when interrupted; a grant that answers later is given back
     */
    Long grant(String name, String holder, boolean exclusive, long leaseMillis, boolean fenced) throws InterruptedException {
        Attempt attempt = new Attempt();
        long askedAt = System.nanoTime();
        CompletableFuture<Long> answer = start(attempt, name, holder, exclusive, leaseMillis, fenced);
        try {
            return answer.get(answerGraceMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            giveBackWhenAnswered(answer, attempt, name, holder, leaseMillis);
            throw e;
        } catch (TimeoutException e) {
            giveBackWhenAnswered(answer, attempt, name, holder, leaseMillis);
            throw new LockServiceUnavailableException("The database did not answer within " + answerGraceMillis
                    + " ms while acquiring lock '" + name + "'; a grant it makes later is given back; the method did not run.", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (!attempt.mayHaveWritten || !givesBackLostAnswers) {
                throw new LockServiceUnavailableException("Could not acquire lock '" + name + "': the database failed ("
                        + cause + "); the method did not run.", cause);
            }
            boolean givenBack = giveBackAtOnce(name, holder, leaseMillis, askedAt);
            throw new LockServiceUnavailableException("Could not acquire lock '" + name + "': the database failed (" + cause
                    + ") before it answered whether it granted the lock; a grant it may have made " + (givenBack
                    ? "was given back" : "is given back as soon as the database answers, within the lease of " + leaseMillis + " ms")
                    + "; the method did not run. Call again once the database answers.", cause);
        }
    }

    /**
     * The decision on one of the backend's threads: in auto-commit mode where the grant is one
     * statement; in a transaction elsewhere, and on PostgreSQL before the tables are open (the
     * statement is as safe in a transaction, only slower).
     */
    private CompletableFuture<Long> start(Attempt attempt, String name, String holder, boolean exclusive, long leaseMillis,
                                          boolean fenced) {
        JdbcTransactions.Work<Long> grant = connection -> {
            LockTables tables = backend.tables();
            // In auto-commit mode the statement commits as it runs: once sent, it may have written,
            // whatever comes back. In a transaction nothing is written until the commit is sent.
            attempt.mayHaveWritten = connection.getAutoCommit();
            Long token = tables.grant(connection, name, holder, exclusive, leaseMillis, fenced);
            attempt.mayHaveWritten = token != null; // a failure from here on (the commit) leaves it unknown
            return token;
        };
        LockTables opened = backend.openedTables();
        return opened != null && opened.grantsInOneStatement() ? transactions.runInAutoCommit(grant) : transactions.run(grant);
    }

    /** A caller stopped waiting for {@code answer}: a grant it brings, or may have written, goes straight back. */
    private void giveBackWhenAnswered(CompletableFuture<Long> answer, Attempt attempt, String name, String holder,
                                      long leaseMillis) {
        answer.whenComplete((token, error) -> {
            if (error == null ? token != null : attempt.mayHaveWritten && givesBackLostAnswers) {
                giveBack(name, holder, leaseMillis);
            }
        });
    }

    /**
     * Gives the grant back, waiting for the first delete while the caller's answer grace lasts.
     *
     * @return whether the first delete was done (the row, if any, is gone) before the grace ran out
     */
    private boolean giveBackAtOnce(String name, String holder, long leaseMillis, long askedAt) {
        CompletableFuture<Boolean> deleted = giveBack(name, holder, leaseMillis);
        long leftMillis = answerGraceMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt);
        try {
            deleted.get(Math.max(0, leftMillis), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false; // the deletes go on
        }
    }

    /** Deletes the holder's row now and, unless that finds it, again until its lease would have ended: the first delete. */
    private CompletableFuture<Boolean> giveBack(String name, String holder, long leaseMillis) {
        long untilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis + PAST_THE_LEASE_MILLIS);
        return deleteUntil(name, holder, untilNanos, FIRST_PAUSE_MILLIS);
    }

    private CompletableFuture<Boolean> deleteUntil(String name, String holder, long untilNanos, long pauseMillis) {
        CompletableFuture<Boolean> deleted = backend.delete(name, holder);
        deleted.whenComplete((wasInForce, error) -> {
            long pauseNanos = TimeUnit.MILLISECONDS.toNanos(pauseMillis);
            if (Boolean.TRUE.equals(wasInForce) || closed || System.nanoTime() + pauseNanos - untilNanos > 0) {
                return;
            }
            later.run(() -> deleteUntil(name, holder, untilNanos, Math.min(2 * pauseMillis, LONGEST_PAUSE_MILLIS)), pauseNanos);
        });
        return deleted;
    }

    /** What one decision may have done: read after its answer, or its failure, came. */
    private static final class Attempt {
        /** The holder's row may be in the database: the decision granted, or its outcome is unknown. */
        volatile boolean mayHaveWritten;
    }
}
