/**
 * The lock and id engine, with no CDI: lock execution, invocation owners, key templates.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release. Use
 * {@link dev.distlock.DistributedLocks} or the annotations instead.
 */
package dev.distlock.internal.core;
