package dev.distlock.transactions;

import dev.distlock.testing.DistlockWeld;

import java.util.Map;

/** The four shapes through distlock's build compatible extension, as a CDI Lite runtime (Quarkus) runs it. */
class TransactionShapesLiteTest extends TransactionShapesTest {

    @Override
    DistlockWeld container(Map<String, String> properties, Class<?>... beans) {
        return Narayana.startLite(properties, beans);
    }
}
