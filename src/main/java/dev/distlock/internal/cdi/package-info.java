/**
 * The CDI integration: interceptors, the extension that validates every lock at deployment,
 * configuration, the Redis connection and the JTA bridge. Thin adapters over
 * {@link dev.distlock.internal.core}.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.cdi;
