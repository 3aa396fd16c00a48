/**
 * The id engine, with no CDI: Snowflake with leased worker ids, segments leased from a database
 * table, and daily serials (their format, day and ranges) counted by a store's
 * {@link dev.distlock.spi.id.DayCounter}.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release. Use
 * {@link dev.distlock.id.IdGenerator}.
 */
package dev.distlock.internal.id;
