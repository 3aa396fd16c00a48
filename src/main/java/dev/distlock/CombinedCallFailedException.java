package dev.distlock;

/**
 * A combined call's batch failed ({@link Batch}): its batch method threw, or its transaction was
 * rolled back (a lock lost before the commit among the reasons). Nothing of the batch took effect,
 * this call included, whatever the batch method had answered it; the call can be retried. The
 * cause is what made the batch fail.
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
