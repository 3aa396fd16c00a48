package dev.distlock;

/**
 * The lock was no longer held when it was released: its lease expired, Redis lost it, or another
 * holder took it meanwhile. The method ran, but not necessarily alone. If the method threw, its
 * exception is the one thrown and this one is attached as suppressed.
 *
 * <p>If the lock was found gone just before the transaction the method ran in committed,
 * distlock rolled that transaction back: {@link #rolledBack()} is {@code true}, nothing the
 * transaction wrote was committed, and the call can be retried as it is. The transaction
 * manager's own exception is the cause.
 */
public class LockLostException extends DistlockException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final boolean rolledBack;

    public LockLostException(String key, String message) {
        super(message);
        this.key = key;
        this.rolledBack = false;
    }

    /** A lock found gone before its transaction committed, which distlock therefore rolled back. */
    public LockLostException(String key, String message, Throwable transactionFailure) {
        super(message, transactionFailure);
        this.key = key;
        this.rolledBack = true;
    }

    /**
     * Whether distlock rolled back the transaction the method ran in because the lock was gone
     * before its commit: then nothing it wrote in that transaction was committed. {@code false}:
     * the method's work stands (it may have committed), although it may not have run alone.
     */
    public boolean rolledBack() {
        return rolledBack;
    }

    /** The Redis key of the lock that was lost. */
    public String key() {
        return key;
    }
}
