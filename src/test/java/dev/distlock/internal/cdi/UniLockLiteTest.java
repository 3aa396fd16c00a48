package dev.distlock.internal.cdi;

import dev.distlock.testing.DistlockWeld;

import java.util.Map;

/** {@link UniLockTest} through the build compatible extension, as on Quarkus. */
class UniLockLiteTest extends UniLockTest {

    @Override
    protected DistlockWeld start(Map<String, String> properties, Class<?>... beans) {
        return DistlockWeld.startLite(properties, beans);
    }
}
