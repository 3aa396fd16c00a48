/**
 * Short JDBC transactions on distlock's own connections, never the caller's transaction: shared by
 * the segment id store and the database lock backend.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.jdbc;
