package dev.distlock.internal.core;

import dev.distlock.LockMode;

/**
 * Where the engine tells a tracer about each locked call: the CDI layer's OpenTelemetry spans. The
 * engine knows nothing of the tracer; a call that {@link #begin} does not trace costs one null check
 * at each step.
 */
public interface LockTracing {

    /** Traces nothing. */
    LockTracing NONE = (site, mode, template) -> null;

    /**
     * A locked call starts asking for its locks, on its own thread (where the current trace is).
     *
     * @param site     the locked method, or the programmatic call ({@link dev.distlock.spi.LockPolicy#site()})
     * @param template the call's key templates as written, never a rendered key; {@code null} for the
     *                 programmatic API, whose keys are the application's values
     * @return what to tell as the call goes on, or {@code null} when this call is not traced
     */
    Trace begin(String site, LockMode mode, String template);

    /** Told once by the engine, before any call: the name this server goes by in the store, for the spans to carry. */
    default void nodeName(String nodeName) {
    }

    /** How one of a call's locks came to be held. */
    enum Source {
        /** The call's own chain held it already. */
        REENTERED,
        /** Handed on by the previous holder in this JVM, without the store. */
        LOCAL,
        /** Taken from the store. */
        STORE
    }

    /**
     * One traced call, told in this order: {@link #took} for each lock (or {@link #timedOut}), then
     * {@link #ended} once. Each method is quick and must not throw.
     */
    interface Trace {

        /** One of the call's locks is held; {@code fencingToken} is 0 for an unfenced lock. */
        void took(Source source, long fencingToken);

        /** A lock could not be had within the wait; the call is skipped or fails. */
        void timedOut();

        /**
         * The call is over and its locks are released, or left to the transaction that was active
         * when it began, or its stage has completed.
         *
         * @param failure what the caller sees thrown; {@code null} when the call returned (or was skipped)
         */
        void ended(Throwable failure);
    }
}
