package dev.distlock;

/**
 * Redis could not be reached or did not answer in time. Thrown instead of hanging; the method did
 * not run (or, when thrown at release, the lock expires on its own at the end of its lease).
 */
public class LockServiceUnavailableException extends DistlockException {

    private static final long serialVersionUID = 1L;

    public LockServiceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
