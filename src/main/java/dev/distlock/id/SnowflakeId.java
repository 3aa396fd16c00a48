package dev.distlock.id;

import java.time.Instant;

/**
 * The parts of a Snowflake id.
 *
 * @param time     the millisecond it was issued in
 * @param worker   the worker id of the node that issued it
 * @param sequence its number within that millisecond on that node
 */
public record SnowflakeId(Instant time, long worker, long sequence) {
}
