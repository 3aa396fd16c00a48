/**
 * The lock engine, with no CDI and no store of its own: lock execution, invocation owners, local
 * queues and handoff, the lease watch, transactions, the one translation of a backend's answers
 * into exceptions, key templates. It talks to a store only through {@link dev.distlock.spi.LockBackend}.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release. Use
 * {@link dev.distlock.DistributedLocks} or the annotations instead.
 */
package dev.distlock.internal.core;
