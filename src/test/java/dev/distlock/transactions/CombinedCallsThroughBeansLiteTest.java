package dev.distlock.transactions;

import dev.distlock.testing.DistlockWeld;

import java.util.Map;

/** Combined calls through distlock's build compatible extension, as a CDI Lite runtime (Quarkus) runs it. */
class CombinedCallsThroughBeansLiteTest extends CombinedCallsThroughBeansTest {

    @Override
    DistlockWeld container(Map<String, String> properties, Class<?>... beans) {
        return Narayana.startLite(properties, beans);
    }
}
