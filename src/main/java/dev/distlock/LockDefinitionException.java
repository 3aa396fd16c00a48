package dev.distlock;

/**
 * A lock annotation or its configuration is invalid. Reported as a deployment problem; the
 * message names the class, the method, the member and the value.
 */
public class LockDefinitionException extends DistlockException {

    private static final long serialVersionUID = 1L;

    public LockDefinitionException(String message) {
        super(message);
    }
}
