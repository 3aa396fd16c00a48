/**
 * MicroProfile Health readiness checks and MicroProfile Metrics for locks. Registered by the
 * extension only when those APIs are on the class path; distlock works without them.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.cdi.observability;
