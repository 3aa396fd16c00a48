package dev.distlock.spi.id;

/** Where a Snowflake generator gets its worker id: fixed, or leased. */
public interface WorkerSource extends AutoCloseable {

    /**
     * The lease to issue under now; may wait briefly for a lease being taken.
     *
     * @throws dev.distlock.id.IdGenerationException when there is no valid lease
     */
    WorkerLease current();

    /**
     * Has the store record that {@code lease}'s holder may issue ids up to {@code elapsedMillis}
     * (since the layout's epoch), and raises {@link WorkerLease#recordedUntilMillis()} once it has.
     * The generator calls it, and waits for it, before it issues an id past what is recorded: after
     * the wall clock stepped forward by more than the store's record runs ahead of it. Nothing to do
     * for a source whose leases are {@link WorkerLease#UNBOUNDED}.
     *
     * @throws dev.distlock.id.IdGenerationException when the store did not record it
     */
    default void recordUpTo(WorkerLease lease, long elapsedMillis) {
    }

    @Override
    void close();
}
