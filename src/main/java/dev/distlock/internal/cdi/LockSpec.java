package dev.distlock.internal.cdi;

import dev.distlock.LockMode;
import dev.distlock.spi.LockPolicy;
import dev.distlock.internal.core.MethodKeys;
import dev.distlock.internal.core.ReturnKind;

import java.util.Objects;

/**
 * Everything one locked method needs at call time, resolved once at deployment from its
 * annotation and configuration.
 */
record LockSpec(LockPolicy policy, MethodKeys keys, ReturnKind returnKind) {

    LockSpec {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(returnKind, "returnKind");
    }

    LockMode mode() {
        return policy.mode();
    }
}
