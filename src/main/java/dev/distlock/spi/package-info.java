/**
 * The service provider interface for lock backends: where a lock lives. The engine (owners,
 * transactions, local queueing and handoff, the lease watch, errors, listeners) is written once
 * above {@link dev.distlock.spi.LockBackend}; a backend takes a named lock and gives back a
 * {@link dev.distlock.spi.BackendLease}, says whether it still holds it, and releases it.
 *
 * <p>Use a backend without CDI through {@code DistributedLocks.builder(backend)}; make it selectable
 * with {@code distlock.backend} through a {@link dev.distlock.spi.LockBackendProvider}. Every backend
 * must pass the contract suite published in distlock's test kit (see docs/writing-a-backend.md).
 */
package dev.distlock.spi;
