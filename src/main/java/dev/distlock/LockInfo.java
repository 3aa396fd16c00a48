package dev.distlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One lock as this JVM and its store see it, from {@link DistributedLocks#inspect(String)}: for the
 * person on call asking who holds a key, since when, and how many wait for it.
 *
 * @param key          the key as the application gave it ({@code stock:MUG-BLUE}), without the prefix
 * @param mode         {@link LockMode#EXCLUSIVE}, or {@link LockMode#READ} / {@link LockMode#WRITE}
 *                     for a read-write lock (as held here, or as the store keeps it)
 * @param holdersHere  the holders in this JVM: one for an exclusive or write lock, one per reading call
 * @param waitingHere  calls in this JVM queued for the key (exclusive and write locks; readers do
 *                     not queue here)
 * @param store        what the store said of the lock when asked; see {@link Stored}
 */
public record LockInfo(String key, LockMode mode, List<Holder> holdersHere, int waitingHere, Stored store) {

    public LockInfo {
        holdersHere = List.copyOf(holdersHere);
    }

    /**
     * One holder in this JVM.
     *
     * @param site          the locked method ({@code Inventory.reserve(String,int)}) or the
     *                      programmatic call that took the lock
     * @param since         when this holder got it (handed on in this JVM, or from the store)
     * @param storeSince    when this JVM took it from the store: earlier than {@code since} when
     *                      holders here passed it on without the store
     * @param fencingToken  the acquisition's fencing token; 0 when not fenced
     * @param finished      the holder's work has returned, and the lock stays taken for its minimum
     *                      hold ({@link Locked#holdAtLeast()}) or until its transaction completes
     */
    public record Holder(String site, Instant since, Instant storeSince, long fencingToken, boolean finished) {
    }

    /**
     * What the store said.
     *
     * @param state      {@code HELD}, {@code FREE}, or {@code UNKNOWN} when the store could not be asked
     *                   or cannot tell (then {@code problem} says why)
     * @param holders    the store's ids of the acquisitions holding it (for Redis,
     *                   {@code <client id>:<acquisition id>}); empty where the store does not say
     * @param nodes      the server each of them runs on, by id: its node name
     *                   ({@code distlock.node-name}, by default the host's name), kept in the store
     *                   beside the holder; a holder missing here ran where the store kept no name
     * @param heldByThisJvm whether one of them is this JVM's
     * @param leaseLeft  how long the store keeps the lock without a renewal; empty for a lock with no
     *                   expiry or a store that does not say
     * @param problem    why the state is {@code UNKNOWN}
     */
    public record Stored(State state, List<String> holders, Map<String, String> nodes, boolean heldByThisJvm,
                         Optional<Duration> leaseLeft, Optional<String> problem) {

        public Stored {
            holders = List.copyOf(holders);
            nodes = Map.copyOf(nodes);
        }

        /** Holders of no known server. */
        public Stored(State state, List<String> holders, boolean heldByThisJvm, Optional<Duration> leaseLeft,
                      Optional<String> problem) {
            this(state, holders, Map.of(), heldByThisJvm, leaseLeft, problem);
        }

        /** The server {@code holder} runs on, where the store keeps its name. */
        public Optional<String> node(String holder) {
            return Optional.ofNullable(nodes.get(holder));
        }

        /** Not asked, or no answer: {@code why}. */
        public static Stored unknown(String why) {
            return new Stored(State.UNKNOWN, List.of(), false, Optional.empty(), Optional.of(why));
        }

        /** Whether the store holds the lock, as far as it said. */
        public enum State { HELD, FREE, UNKNOWN }
    }
}
