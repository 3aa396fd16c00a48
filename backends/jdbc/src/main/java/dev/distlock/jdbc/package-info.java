/**
 * Locks as rows in the application's database, chosen with {@code distlock.backend=jdbc}
 * ({@link dev.distlock.jdbc.JdbcBackendProvider}), or used without CDI through
 * {@code DistributedLocks.builder(backend)}. Apart from the provider and
 * {@link dev.distlock.jdbc.JdbcBackend}, nothing here is API.
 */
package dev.distlock.jdbc;
