/**
 * What a backend needs to keep ids for distlock's generators: Snowflake worker ids leased in its
 * store ({@link dev.distlock.spi.id.WorkerLeasing}, {@link dev.distlock.spi.id.WorkerLeases},
 * {@link dev.distlock.spi.id.HeartbeatWorkerSource}) and the layout they are issued in
 * ({@link dev.distlock.spi.id.SnowflakeLayout}), and where ranges of ids are leased durably
 * ({@link dev.distlock.spi.id.SegmentStore}), as the daily serials counted in Redis lease theirs,
 * and the count of the day's serials ({@link dev.distlock.spi.id.DayCounter}) in an
 * {@link dev.distlock.spi.id.IdStore}. Released with distlock, in the same version as the backend
 * artifacts that use it.
 */
package dev.distlock.spi.id;
