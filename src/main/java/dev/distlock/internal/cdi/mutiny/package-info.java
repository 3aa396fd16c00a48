/**
 * Locked methods returning Mutiny's {@code Uni}: each subscription takes the locks, runs the method
 * and the {@code Uni} it returned, and releases them when that {@code Uni} has ended. Loaded only
 * for such a method, so Mutiny (and Vert.x, used only on its event loops) is needed only where an
 * application returns a {@code Uni}.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release.
 */
package dev.distlock.internal.cdi.mutiny;
