/**
 * Locks in this JVM's memory, for applications' tests: the store behind
 * {@link dev.distlock.InMemoryLocks} and {@code distlock.backend=in-memory}, and the check that
 * keeps it out of production.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.memory;
