package dev.distlock.spi.id;

/** Where a Snowflake generator gets its worker id: fixed, or leased. */
public interface WorkerSource extends AutoCloseable {

    /**
     * The lease to issue under now; may wait briefly for a lease being taken.
     *
     * @throws dev.distlock.id.IdGenerationException when there is no valid lease
     */
    WorkerLease current();

    @Override
    void close();
}
