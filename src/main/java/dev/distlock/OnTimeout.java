package dev.distlock;

/** What a locked method does when its lock cannot be had within {@code waitTime}. */
public enum OnTimeout {

    /** Throw {@link LockTimeoutException} (for {@code CompletionStage} methods: a failed stage). */
    FAIL,

    /**
     * Do not run the method and return nothing: {@code null}, an empty {@code Optional}, or a
     * stage completed with {@code null}. Methods returning a primitive cannot skip; declaring it
     * on one fails the deployment.
     */
    SKIP
}
