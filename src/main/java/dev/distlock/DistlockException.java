package dev.distlock;

/** Root of every exception distlock throws. Business exceptions of locked methods pass unchanged. */
public class DistlockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public DistlockException(String message) {
        super(message);
    }

    public DistlockException(String message, Throwable cause) {
        super(message, cause);
    }
}
