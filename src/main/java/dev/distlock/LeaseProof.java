package dev.distlock;

/**
 * Which locks the check just before a transaction commits may show still held from what the store
 * last said of their lease, without asking it again (a network round trip inside every locked
 * transaction). A lease is shown held that way only while it is known to run for at least
 * {@code distlock.answer-grace} more, counted on this JVM's monotonic clock from when the store
 * answered, less 1 % for clock drift, and while the client has lost no connection to the store since
 * (a restart or a failover would break them). Only Redis leases of exclusive locks keep such
 * knowledge; every other lock is asked.
 *
 * <p>What only the round trip sees: a lock deleted by hand ({@code DEL}, {@code FLUSHALL}), evicted
 * under {@code maxmemory}, or lost in a failover or restart the client has not noticed yet (a
 * network partition hides both); and a Redis server whose clock jumps forward. Configured with
 * {@code distlock.transaction.lease-proof}.
 */
public enum LeaseProof {

    /** Every lock is asked of the store before the commit. */
    NONE,

    /**
     * Fenced locks ({@code fenced = true}) are shown held from their lease when it is known to last;
     * the others are asked. The default: a write fenced with the lock's token is refused once a later
     * holder wrote, whatever the check could not see, so the round trip adds nothing to such data.
     */
    FENCED,

    /** Every lock whose lease is known to last is shown held from it; the others are asked. */
    ALL
}
