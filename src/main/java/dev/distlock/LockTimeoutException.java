package dev.distlock;

/** The lock could not be had within {@code waitTime}; the method did not run. */
public class LockTimeoutException extends DistlockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public LockTimeoutException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The Redis key of the lock that could not be had. */
    public String key() {
        return key;
    }
}
