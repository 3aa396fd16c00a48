package dev.distlock;

/**
 * The lock was no longer held when it was released: its lease expired, Redis lost it, or another
 * holder took it meanwhile. The method ran, but not necessarily alone. If the method threw, its
 * exception is the one thrown and this one is attached as suppressed.
 */
public class LockLostException extends DistlockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public LockLostException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The Redis key of the lock that was lost. */
    public String key() {
        return key;
    }
}
