package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.LockMode;

import java.lang.annotation.Annotation;
import java.util.List;

/** The members of {@link Locked}, {@link ReadLocked} or {@link WriteLocked}, whichever was used. */
record LockAnnotation(LockMode mode, String simpleName, List<String> value, long waitTime, long leaseTime, OnTimeout onTimeout,
                      boolean fenced, long holdAtLeast) {

    static final List<Class<? extends Annotation>> TYPES = List.of(Locked.class, ReadLocked.class, WriteLocked.class);

    static LockAnnotation of(Annotation annotation) {
        if (annotation instanceof Locked a) {
            return new LockAnnotation(LockMode.EXCLUSIVE, "Locked", List.of(a.value()), a.waitTime(), a.leaseTime(), a.onTimeout(),
                    a.fenced(), a.holdAtLeast());
        }
        if (annotation instanceof ReadLocked a) {
            return new LockAnnotation(LockMode.READ, "ReadLocked", List.of(a.value()), a.waitTime(), a.leaseTime(), a.onTimeout(),
                    false, 0);
        }
        if (annotation instanceof WriteLocked a) {
            return new LockAnnotation(LockMode.WRITE, "WriteLocked", List.of(a.value()), a.waitTime(), a.leaseTime(), a.onTimeout(),
                    false, 0);
        }
        throw new IllegalArgumentException("not a lock annotation: " + annotation);
    }
}
