package dev.distlock.id;

import dev.distlock.DistlockException;

/** No id could be issued safely; none was issued. The message says why and what to do. */
public class IdGenerationException extends DistlockException {

    private static final long serialVersionUID = 1L;

    public IdGenerationException(String message) {
        super(message);
    }

    public IdGenerationException(String message, Throwable cause) {
        super(message, cause);
    }
}
