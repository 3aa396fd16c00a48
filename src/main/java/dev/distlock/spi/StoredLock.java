package dev.distlock.spi;

import dev.distlock.LockMode;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A lock as its store keeps it, for {@link LockBackend#inspect}: read from the store when asked, never
 * kept on the lock path.
 *
 * @param name            the lock's name, as the engine gave it to {@link LockBackend#acquire}
 * @param mode            {@link LockMode#READ} when readers hold it; otherwise {@link LockMode#EXCLUSIVE}
 *                        or {@link LockMode#WRITE}, either (the engine tells an exclusive lock from a
 *                        write lock by the name)
 * @param holders         the acquisitions holding it: the store's id of each, in the store's own
 *                        form, and the server that took it where the store keeps its name
 * @param heldByThisClient whether one of them was made through this backend's client (this JVM)
 * @param leaseLeftMillis how long the store keeps it without renewal; {@link #NO_EXPIRY} when it
 *                        does not expire or the store does not say
 */
public record StoredLock(String name, LockMode mode, List<Holder> holders, boolean heldByThisClient, long leaseLeftMillis) {

    /** The lock has no expiry in the store, or the store does not say. */
    public static final long NO_EXPIRY = -1;

    public StoredLock {
        holders = List.copyOf(holders);
    }

    /** The holders' ids, in order. */
    public List<String> holderIds() {
        return holders.stream().map(Holder::id).toList();
    }

    /**
     * One acquisition holding a lock.
     *
     * @param id   the store's id of it ({@code <client id>:<acquisition id>} in Redis, the session and
     *             node sequence in ZooKeeper, the holder column in the database)
     * @param node the name of the server that took it ({@link NodeName}); empty where the store does
     *             not keep it (a holder taken by a distlock that kept none, an unnamed client)
     */
    public record Holder(String id, Optional<String> node) {

        public Holder {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(node, "node");
        }

        /** A holder named {@code node}, or of no known server when {@code node} is null or empty. */
        public static Holder of(String id, String node) {
            return new Holder(id, node == null || node.isEmpty() ? Optional.empty() : Optional.of(node));
        }

        /** {@code <id> on <node>}, or the id alone. */
        @Override
        public String toString() {
            return node.map(server -> id + " on " + server).orElse(id);
        }
    }
}
