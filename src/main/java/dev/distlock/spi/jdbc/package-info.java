/**
 * What a backend that keeps its state in a database shares with distlock's segment id store:
 * one short JDBC transaction on a connection of its own, never the caller's transaction
 * ({@link dev.distlock.spi.jdbc.Transactions}), and a connection whose statements are bounded in
 * time ({@link dev.distlock.spi.jdbc.BoundedConnection}). Released with distlock, in the same
 * version as the backend artifacts that use it.
 */
package dev.distlock.spi.jdbc;
