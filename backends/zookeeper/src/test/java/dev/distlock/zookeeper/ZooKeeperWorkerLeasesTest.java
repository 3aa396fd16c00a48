package dev.distlock.zookeeper;

import dev.distlock.testing.IdRuns;
import dev.distlock.testing.MovableClock;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerationException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snowflake worker ids leased as ephemeral ZooKeeper nodes: two sessions never share one; a session
 * that ends stops issuing at once and takes a worker id again; a worker id used by a node whose
 * clock was ahead is not taken by a node whose clock is behind.
 */
@Timeout(120)
class ZooKeeperWorkerLeasesTest {

    private static final int SESSION_TIMEOUT_MILLIS = 4_000;
    private static TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<SnowflakeGenerator> generators = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @AfterEach
    void close() {
        generators.forEach(SnowflakeGenerator::close);
        clients.forEach(CuratorFramework::close);
    }

    private CuratorFramework client() {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(SESSION_TIMEOUT_MILLIS).connectionTimeoutMs(2_000).retryPolicy(new RetryOneTime(100)).build();
        client.start();
        clients.add(client);
        return client;
    }

    private SnowflakeGenerator generator(String name, SnowflakeLayout layout, Clock clock, CuratorFramework client) {
        SnowflakeGenerator generator = SnowflakeGenerator.leased(name, layout, clock, 10,
                ZooKeeperWorkerLeases.factory(client, "/worker-test", SESSION_TIMEOUT_MILLIS));
        generators.add(generator);
        return generator;
    }

    @Test
    void twoSessionsNeverShareAWorkerIdNorAnId() throws Exception {
        SnowflakeGenerator one = generator("orders", SnowflakeLayout.DEFAULT, Clock.systemUTC(), client());
        SnowflakeGenerator two = generator("orders", SnowflakeLayout.DEFAULT, Clock.systemUTC(), client());
        one.nextId();
        two.nextId();
        assertNotEquals(one.workerId(), two.workerId());
        long[] first = new long[200_000];
        long[] second = new long[200_000];
        for (int i = 0; i < first.length; i++) {
            first[i] = one.nextId();
            second[i] = two.nextId();
        }
        assertEquals(0, IdRuns.duplicates(IdRuns.concat(first, second)));
    }

    /**
     * After its session ends, the generator issues under its old worker id no later than the server
     * could end that session and free the worker id, unless it took that worker id again under its
     * new session; and it goes on issuing.
     */
    @Test
    void anEndedSessionsWorkerIdIsNotUsedOnceItCouldBeFree() throws Exception {
        CuratorFramework client = client();
        SnowflakeGenerator generator = generator("expiring", SnowflakeLayout.DEFAULT, Clock.systemUTC(), client);
        generator.nextId();
        long oldWorker = generator.workerId();
        long oldSession = client.getZookeeperClient().getZooKeeper().getSessionId();
        long expiredAt = System.currentTimeMillis();
        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        List<Long> ids = new ArrayList<>();
        int refused = 0;
        long movedAfter = -1;
        long underOldSession = 0;
        while (System.currentTimeMillis() - expiredAt < SESSION_TIMEOUT_MILLIS + 2_000) {
            try {
                long id = generator.nextId();
                ids.add(id);
                if (movedAfter < 0 && generator.workerId() != oldWorker) {
                    movedAfter = System.currentTimeMillis() - expiredAt;
                }
                if (generator.decode(id).orElseThrow().worker() == oldWorker
                        && System.currentTimeMillis() - expiredAt > SESSION_TIMEOUT_MILLIS / 2) {
                    // The old worker id again: only if this client's new session holds its node now.
                    org.apache.zookeeper.data.Stat node = client.checkExists().forPath("/worker-test/id/expiring/worker/" + oldWorker);
                    if (node == null || node.getEphemeralOwner() == oldSession) {
                        underOldSession++;
                    }
                }
            } catch (IdGenerationException e) {
                refused++;
            }
            Thread.sleep(0, 200_000);
        }
        assertEquals(0, underOldSession, "ids under worker id " + oldWorker + " more than half a session timeout after "
                + "its session ended, while the node was not the new session's");
        long lastTime = generator.decode(ids.get(ids.size() - 1)).orElseThrow().time().toEpochMilli();
        assertTrue(lastTime >= expiredAt + SESSION_TIMEOUT_MILLIS, "the generator stopped issuing");
        assertEquals(0, IdRuns.duplicates(ids.stream().mapToLong(Long::longValue).toArray()));
        System.out.printf("[zookeeper-worker] session ended: worker id %d -> %d after %d ms, %d calls refused meanwhile, "
                + "%,d ids in %d ms%n", oldWorker, generator.workerId(), movedAfter, refused, ids.size(), SESSION_TIMEOUT_MILLIS + 2_000);
    }

    @Test
    void aWorkerIdUsedByAClockAheadIsNotTakenByAClockBehind() throws Exception {
        // 1 worker bit: worker ids 0 and 1.
        SnowflakeLayout two = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 1, 21);
        SnowflakeGenerator ahead = generator("skew", two, new MovableClock(Duration.ofSeconds(30)), client());
        SnowflakeGenerator keeps = generator("skew", two, Clock.systemUTC(), client());
        ahead.nextId();
        keeps.nextId();
        long freed = ahead.workerId();
        ahead.close(); // an orderly stop: its bound is what it issued, 30 s ahead of the others' clocks
        SnowflakeGenerator behind = generator("skew", two, Clock.systemUTC(), client());
        IdGenerationException refused = assertThrows(IdGenerationException.class, behind::nextId);
        assertTrue(refused.getMessage().contains("clock is ahead"), refused.getMessage());
        assertEquals(1 - freed, keeps.workerId());
    }

}
