package dev.distlock.internal.cdi.observability;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.IdTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A segment database that went back is reported where an operator looks: readiness
 * ({@code distlock-id-store}) is DOWN naming the generator while it refuses ranges, the counter
 * {@code distlock.id.segment.refused} counts each refused range, and both recover once the database
 * hands out a range above what the generator had. The database really goes back (SQL on its row).
 */
@Timeout(60)
class SegmentStoreWentBackReportedTest {

    @Dependent
    public static class Invoices {
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator ids;
    }

    /**
     * The server's metric registry, as far as distlock uses it: counters by name and tags. No MP
     * Metrics implementation is on the test class path; what is checked is what distlock records.
     */
    public static class Registry {
        static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();

        @Produces
        @ApplicationScoped
        MetricRegistry registry() {
            return (MetricRegistry) Proxy.newProxyInstance(MetricRegistry.class.getClassLoader(), new Class<?>[]{MetricRegistry.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "counter" -> counter(((Metadata) args[0]).getName() + Arrays.stream((Tag[]) args[1])
                                .map(tag -> " " + tag.getTagName() + "=" + tag.getTagValue()).collect(Collectors.joining()));
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        case "toString" -> "test registry";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private static Counter counter(String id) {
            AtomicLong count = COUNTS.computeIfAbsent(id, any -> new AtomicLong());
            return (Counter) Proxy.newProxyInstance(Counter.class.getClassLoader(), new Class<?>[]{Counter.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "inc" -> {
                            count.addAndGet(args == null ? 1 : (Long) args[0]);
                            yield null;
                        }
                        case "getCount" -> count.get();
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }
    }

    private static final String REFUSED = "distlock.id.segment.refused generator=invoice";

    @Test
    void readinessIsDownAndTheCounterCountsWhileTheDatabaseHandsOutIdsAlreadyIssued() throws Exception {
        String url = IdTestDatabase.uniqueUrl("went-back");
        Map<String, String> config = Map.of(IdTestDatabase.URL_KEY, url, "distlock.id.invoice.step", "50",
                "distlock.id.invoice.min-step", "50", "distlock.id.invoice.max-step", "50");
        try (DistlockWeld weld = DistlockWeld.start(config, IdTestDatabase.class, Registry.class, Invoices.class)) {
            IdGenerator ids = weld.bean(Invoices.class).ids;
            for (int i = 0; i < 120; i++) {
                ids.nextId();
            }
            awaitMaxId(url, 200);
            assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus());
            assertEquals(0, count(REFUSED), "registered at zero as the application started: " + Registry.COUNTS.keySet());

            // A failover to a replica that missed the leases of 51..200.
            try (Connection connection = IdTestDatabase.dataSource(url).getConnection();
                 PreparedStatement update = connection.prepareStatement("UPDATE distlock_id_segment SET max_id = 50 WHERE name = 'invoice'")) {
                assertEquals(1, update.executeUpdate());
            }

            IdGenerationException refused = null;
            for (int i = 0; i < 200 && refused == null; i++) {
                try {
                    ids.nextId();
                } catch (IdGenerationException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null && refused.getMessage().contains("went back"), "a caller was refused: " + refused);
            HealthCheckResponse down = readiness(weld);
            assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus(), down.getData().toString());
            String reported = down.getData().orElseThrow().get("invoice").toString();
            assertTrue(reported.contains("went back") && reported.contains("up to 200"), reported);
            assertTrue(count(REFUSED) >= 1, "counted: " + count(REFUSED));

            long next = nextIdOnceAccepted(ids);
            assertEquals(201, next, "the first id after the refusals is above every earlier one");
            assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus(), "a good range ends the report");
            assertEquals(3, count(REFUSED), "51..100, 101..150 and 151..200 were refused");
        }
    }

    private static long nextIdOnceAccepted(IdGenerator ids) {
        for (int attempt = 0; ; attempt++) {
            try {
                return ids.nextId();
            } catch (IdGenerationException stillBelow) {
                if (attempt > 10) {
                    throw stillBelow;
                }
            }
        }
    }

    private static long count(String id) {
        AtomicLong count = Registry.COUNTS.get(id);
        return count == null ? -1 : count.get();
    }

    private static HealthCheckResponse readiness(DistlockWeld weld) {
        return weld.container().select(IdStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
    }

    private static void awaitMaxId(String url, long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (IdTestDatabase.maxId(url, "invoice").orElse(0) != expected) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("max_id is " + IdTestDatabase.maxId(url, "invoice") + ", not " + expected);
            }
            Thread.sleep(5);
        }
    }
}
