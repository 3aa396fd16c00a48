/**
 * The id engine, with no CDI: Snowflake with leased worker ids, and segments leased from a
 * database table.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release. Use
 * {@link dev.distlock.id.IdGenerator}.
 */
package dev.distlock.internal.id;
