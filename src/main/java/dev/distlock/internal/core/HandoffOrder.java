package dev.distlock.internal.core;

/**
 * The order of a handoff's steps in {@link Releases}. Every engine hands over
 * {@linkplain #CONFIRM_FIRST as designed}; the other order is a bug planted on purpose, chosen only
 * by the model check's twin ({@code HandoffModelCheckTest} in {@code model-check/}), which shows
 * that the check fails on it: a check that cannot fail there proves nothing of the design.
 */
enum HandoffOrder {

    /**
     * Ask the backend to confirm the tenure, then leave it for the next caller and give up the
     * turn. The tenure cannot be released before the question is asked, so the release waits for
     * its answer or gives it.
     */
    CONFIRM_FIRST,

    /**
     * The planted bug: leave the tenure and give up the turn, then ask. By then the next caller may
     * have released the tenure: the holder is told of a loss that did not happen, or waits for an
     * answer that nothing will give.
     */
    CONFIRM_AFTER_LEAVING
}
