package dev.distlock;

/**
 * A combined call's batch failed ({@link Batch}): its batch method threw, or its transaction was
 * rolled back (a lock lost before the commit among the reasons) — then nothing of the batch took
 * effect where the batch method is {@code @Transactional}, this call included, whatever it had been
 * answered, and the call can be retried — or, rarely, the batch took effect and the lock's release
 * failed after it (the lock found lost, the store unreachable), as a single call's
 * {@link LockLostException} says after its work ran. The message says which; the cause is the
 * failure.
 */
public class CombinedCallFailedException extends DistlockException {

    private static final long serialVersionUID = 1L;

    private final int batchSize;

    public CombinedCallFailedException(String message, int batchSize, Throwable cause) {
        super(message, cause);
        this.batchSize = batchSize;
    }

    /** How many calls the failed batch served. */
    public int batchSize() {
        return batchSize;
    }
}
