package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.Jdk21;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A scheduled tick once per cluster, on two Payara Micro 7 servers (Jakarta EE 11, a JDK 21+):
 * the shop's stock audit fires every second on each server, the second server's clock 300 ms
 * behind the first's and every third of its ticks started 1.2 s late (a busy scheduler), and
 * {@code @Locked(value = "tick:stock-audit:{slot}", waitTime = 0, onTimeout = SKIP, holdAtLeast = 30_000)}
 * lets one server run each tick. Each run is a row in the shared database: no tick has two rows.
 *
 * <p>Twins: with the minimum hold configured away, most ticks run on both servers; with it at
 * 800 ms (less than the late server's lag plus its lateness), the late ticks run twice. That is
 * what a default run showed when the tick was one lock kept 800 ms and named by the time its run
 * started: a tick the loaded machine started about 0.5 s late ran on both servers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OncePerClusterIT {

    /** How long both servers fire ticks: enough ticks that a duplicate would show. */
    private static final long BOTH_RUNNING_MILLIS = 12_000;
    private static final int LEAST_TICKS = 8;

    private Path java;
    private Path payara7;
    private E2eShop shop;

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void findJdk21() {
        Optional<Path> found = Jdk21.java();
        if (found.isEmpty()) {
            return;
        }
        java = found.get();
        payara7 = E2eShop.path("shop.payara-micro-7");
    }

    /** Each test is skipped, and reported so, without a JDK 21+. */
    @BeforeEach
    void needsJdk21() {
        assumeTrue(java != null, Jdk21.MISSING);
    }

    @AfterEach
    void stop() {
        if (shop != null) {
            shop.close();
            shop = null;
        }
    }

    private static final String HOLD_AT_LEAST = "dev.distlock.example.shop.StockAudit/tick/Locked/holdAtLeast";
    /** The late server starts every third tick this late. */
    private static final String LATE_BY = "PT1.2S";
    private static final int LATE_EVERY = 3;

    @Test
    void eachTickRunsOnOneServerOnly() throws Exception {
        Map<Long, Integer> runsPerTick = runTicks("ticks", Map.of());
        System.out.println("[once-per-cluster] runs per tick, holdAtLeast 30 s: " + runsPerTick);
        assertTrue(runsPerTick.size() >= LEAST_TICKS, "too few ticks ran: " + runsPerTick);
        assertEquals(Map.of(), duplicated(runsPerTick), "ticks that ran on both servers");
    }

    @Test
    void withoutTheMinimumHoldTheLateServerRunsTheTicksAgain() throws Exception {
        Map<Long, Integer> runsPerTick = runTicks("ticks-twin", Map.of(HOLD_AT_LEAST, "0"));
        System.out.println("[once-per-cluster] runs per tick, twin without the hold: " + runsPerTick);
        assertTrue(duplicated(runsPerTick).size() >= LEAST_TICKS / 2,
                "the twin should run most ticks twice: " + runsPerTick);
    }

    /** The reproducer of a tick run twice: a hold shorter than the late server's lag and lateness. */
    @Test
    void aHoldShorterThanATicksLatenessLetsTheLateServerRunItAgain() throws Exception {
        Map<Long, Integer> runsPerTick = runTicks("ticks-short", Map.of(HOLD_AT_LEAST, "800"));
        System.out.println("[once-per-cluster] runs per tick, holdAtLeast 800 ms: " + runsPerTick);
        Map<Long, Integer> twice = duplicated(runsPerTick);
        assertTrue(twice.keySet().stream().filter(tick -> tick % LATE_EVERY == 0).count() >= 2,
                "the late server should run its late ticks (every " + LATE_EVERY + "th) again: " + runsPerTick);
    }

    /** Two servers ticking every second, the second 300 ms behind and every third tick late; how many runs each tick had. */
    private Map<Long, Integer> runTicks(String name, Map<String, String> extra) throws Exception {
        String run = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        shop = E2eShop.withoutServersOn(payara7, java, name);
        Map<String, String> late = new HashMap<>(extra);
        late.put("shop.audit.late-every", Integer.toString(LATE_EVERY));
        late.put("shop.audit.late-by", LATE_BY);
        Map<String, Map<String, String>> servers = new LinkedHashMap<>();
        servers.put(name + "-1", ticking(run + "-a", "PT0S", extra));
        servers.put(name + "-2", ticking(run + "-b", "PT0.3S", late));
        shop.addServers(servers);
        Thread.sleep(BOTH_RUNNING_MILLIS);
        Map<Long, Integer> runs = runsPerTick(run);
        shop.close();
        shop = null;
        return runs;
    }

    private static Map<String, String> ticking(String server, String clockLag, Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>(extra);
        properties.put("shop.audit.period", "PT1S");
        properties.put("shop.audit.clock-lag", clockLag);
        properties.put("shop.server-name", server);
        return properties;
    }

    /** Read from the database, not through the shop. */
    private Map<Long, Integer> runsPerTick(String run) throws SQLException {
        Map<Long, Integer> runs = new TreeMap<>();
        try (Connection connection = shop.cluster().database().connect();
             PreparedStatement query = connection.prepareStatement(
                     "select slot, count(*) from shop_tick_run where server like ? group by slot")) {
            query.setString(1, run + "-%");
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    runs.put(row.getLong(1), row.getInt(2));
                }
            }
        }
        return runs;
    }

    private static Map<Long, Integer> duplicated(Map<Long, Integer> runsPerTick) {
        Map<Long, Integer> twice = new TreeMap<>();
        runsPerTick.forEach((tick, runs) -> {
            if (runs > 1) {
                twice.put(tick, runs);
            }
        });
        return twice;
    }
}
