package dev.distlock;

import java.util.Objects;
import java.util.Optional;

/**
 * How {@link DistributedLocks#forceRelease} may end a lock its holder does not give back: the only
 * two ways that cannot quietly let two holders write.
 *
 * <ul>
 *   <li>{@link #ifFenced()}: only when the store shows the holder took the lock with a fencing token
 *       ({@code @Locked(fenced = true)}). The next holder gets a larger token, so once it has written,
 *       the resource refuses the old holder's writes. A lock held without one is left as it is and
 *       the call fails.</li>
 *   <li>{@link #acknowledging(String)}: any lock, whoever holds it, with the reason the person ending
 *       it gives. The old holder may still be writing when the next one starts: that is what is
 *       acknowledged, and it is logged at {@code WARNING} with the reason.</li>
 * </ul>
 */
public final class ForcedRelease {

    private static final ForcedRelease IF_FENCED = new ForcedRelease(null);

    private final String reason;

    private ForcedRelease(String reason) {
        this.reason = reason;
    }

    /** Ends the lock only if its holder took it with a fencing token. */
    public static ForcedRelease ifFenced() {
        return IF_FENCED;
    }

    /**
     * Ends the lock whoever holds it and however.
     *
     * @param reason why, for the log: who ends it and what was stuck ({@code "on call: order 4711 hangs"})
     * @throws IllegalArgumentException when the reason is null or blank
     */
    public static ForcedRelease acknowledging(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a forced release of a lock that may not be fenced needs a reason, for the log");
        }
        return new ForcedRelease(reason.strip());
    }

    /** Whether the lock is ended only if its holder took it with a fencing token. */
    public boolean fencedOnly() {
        return reason == null;
    }

    /** The acknowledged reason; empty for {@link #ifFenced()}. */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ForcedRelease that && Objects.equals(reason, that.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(reason);
    }

    @Override
    public String toString() {
        return reason == null ? "ForcedRelease.ifFenced()" : "ForcedRelease.acknowledging(\"" + reason + "\")";
    }
}
