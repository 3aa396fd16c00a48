package dev.distlock.spi.id;

/**
 * A lock backend that also leases Snowflake worker ids in its own store: ZooKeeper's ephemeral
 * nodes live as long as the session that holds the locks. With every other backend, worker ids
 * are leased in Redis.
 */
public interface WorkerLeasing {

    /** Worker ids leased in this backend's store, tied to its connection. */
    WorkerLeases workerLeases();
}
