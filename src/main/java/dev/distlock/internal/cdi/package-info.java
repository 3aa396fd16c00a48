/**
 * The CDI integration: the extensions that validate every lock at deployment, the settings, the
 * engine's construction, the interceptors, the producers and the Redis connection. Thin adapters
 * over {@code dev.distlock.internal.core}; docs/code-map.md lists each class.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.cdi;
