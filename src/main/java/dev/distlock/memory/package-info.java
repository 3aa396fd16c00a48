/**
 * Locks in this JVM's memory, for applications' tests: {@link dev.distlock.memory.InMemoryLocks}
 * without CDI, {@code distlock.backend=in-memory} with it, and the check that keeps them out of
 * production. {@code InMemoryLocks} is the API; the rest is distlock's own.
 */
package dev.distlock.memory;
