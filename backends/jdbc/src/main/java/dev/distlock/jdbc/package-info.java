/**
 * Locks as rows in the application's database, chosen with {@code distlock.backend=jdbc}
 * ({@link dev.distlock.jdbc.JdbcBackendProvider}), or used without CDI through
 * {@link dev.distlock.jdbc.JdbcLocks#builder(javax.sql.DataSource) JdbcLocks.builder(dataSource)}.
 * Apart from {@link dev.distlock.jdbc.JdbcLocks}, the provider and {@link dev.distlock.jdbc.JdbcBackend},
 * nothing here is API.
 */
package dev.distlock.jdbc;
