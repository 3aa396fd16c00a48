/**
 * Locks in ZooKeeper through Apache Curator, chosen with {@code distlock.backend=zookeeper}
 * ({@link dev.distlock.zookeeper.ZooKeeperBackendProvider}), or used without CDI through
 * {@code DistributedLocks.builder(backend)}. Snowflake worker ids are leased as ephemeral nodes of
 * the same session. Apart from the provider and {@link dev.distlock.zookeeper.ZooKeeperBackend},
 * nothing here is API.
 */
package dev.distlock.zookeeper;
