package dev.distlock.internal.cdi;

import dev.distlock.LockMode;
import dev.distlock.spi.LockPolicy;
import dev.distlock.internal.core.MethodKeys;
import dev.distlock.internal.core.ReturnKind;

import java.util.Objects;

/**
 * Everything one locked method needs at call time, resolved once at deployment from its
 * annotation and configuration.
 *
 * @param lazy     the adapter of a result whose work runs when it is subscribed (Mutiny's {@code Uni}),
 *                 each subscription one locked call ending with a stage; {@code null} for any other result
 * @param combined how its calls are served together ({@link dev.distlock.Combined}); {@code null} when they are not
 */
record LockSpec(LockPolicy policy, MethodKeys keys, ReturnKind returnKind, LazyResult lazy, CombinedSpec combined) {

    LockSpec {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(returnKind, "returnKind");
        if (lazy != null && returnKind != ReturnKind.COMPLETION_STAGE) {
            throw new IllegalArgumentException("a lazy result's subscriptions end with a stage, not " + returnKind);
        }
    }

    LockMode mode() {
        return policy.mode();
    }
}
