package dev.distlock.internal.cdi;

import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Redis readiness check follows Redis: DOWN while it is gone, UP once it is back. */
class ReadinessTest {

    @Test
    void readinessGoesDownWhenRedisStopsAndUpWhenItReturns() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.redis.address", "redis://127.0.0.1:" + port))) {
            Supplier<HealthCheckResponse> readiness = () -> weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals(HealthCheckResponse.Status.UP, readiness.get().getStatus());

            server.close();
            HealthCheckResponse down = awaitStatus(readiness, HealthCheckResponse.Status.DOWN);
            assertTrue(down.getData().orElseThrow().get("error").toString().contains("127.0.0.1:" + port), down.getData().toString());

            server = RedisProcess.start(port);
            awaitStatus(readiness, HealthCheckResponse.Status.UP);
        } finally {
            stopQuietly(server);
        }
    }

    @Test
    void readinessIsDownWhenRedisWasNeverThere() {
        int port = Ports.free();
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.redis.address", "redis://127.0.0.1:" + port))) {
            HealthCheckResponse response = weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
            assertTrue(response.getData().orElseThrow().get("error").toString().contains("cannot be reached"), response.getData().toString());
        }
    }

    private static HealthCheckResponse awaitStatus(Supplier<HealthCheckResponse> readiness, HealthCheckResponse.Status wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        HealthCheckResponse last;
        do {
            last = readiness.get();
            if (last.getStatus() == wanted) {
                return last;
            }
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("readiness stayed " + last.getStatus() + " " + last.getData() + ", expected " + wanted);
    }

    private static void stopQuietly(RedisProcess server) {
        if (server != null) {
            server.close();
        }
    }
}
