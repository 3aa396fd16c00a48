package dev.distlock.twojvm;

/** A run of contenders that could not be carried out; the message holds every child's output. */
public final class ContenderRunException extends RuntimeException {

    ContenderRunException(String message) {
        super(message);
    }
}
