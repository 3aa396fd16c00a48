package dev.distlock.spi.id;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * Where leased Snowflake worker ids come from: Redis ({@code RedisWorkerLeases}) or ZooKeeper
 * ({@code ZooKeeperWorkerLeases}). Makes the lease source of one generator, once the generator exists.
 */
@FunctionalInterface
public interface WorkerLeases {

    /**
     * @param lastIssuedMillis the last millisecond (since the layout's epoch) the generator issued ids in
     */
    WorkerSource create(String generator, SnowflakeLayout layout, Clock clock, LongSupplier lastIssuedMillis);
}
