package dev.distlock.example.shop;

import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.LastExecution;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.concurrent.Trigger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;

/**
 * A scheduled tick that must run once per cluster: every server fires it at each whole period of
 * its own clock ({@code shop.audit.period}, e.g. {@code PT1S}; unset: no tick), and the lock lets
 * one server run each tick. {@code holdAtLeast} keeps the lock after the quick run, so a server
 * whose clock is behind ({@code shop.audit.clock-lag} pretends so) finds the tick taken when it fires
 * it late, and skips. Each run is a row of {@code shop_tick_run}, read by {@code GET /api/ticks}.
 */
@ApplicationScoped
public class StockAudit {

    private static final System.Logger LOG = System.getLogger(StockAudit.class.getName());

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private volatile ScheduledFuture<?> schedule;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object started, StockAudit self,
                 @ConfigProperty(name = "shop.audit.period", defaultValue = "PT0S") String periodSetting,
                 @ConfigProperty(name = "shop.audit.clock-lag", defaultValue = "PT0S") String clockLagSetting,
                 @ConfigProperty(name = "shop.server-name") Optional<String> serverName) {
        Duration period = duration("shop.audit.period", periodSetting);
        Duration clockLag = duration("shop.audit.clock-lag", clockLagSetting);
        if (period.isZero() || period.isNegative()) {
            return;
        }
        // An empty default counts as no value in MicroProfile Config (Payara Micro 6 then fails the deployment): Optional.
        String server = serverName.orElse("pid-" + ProcessHandle.current().pid());
        WholePeriods ticks = new WholePeriods(period.toMillis(), clockLag.toMillis());
        schedule = scheduler.schedule(() -> self.tick(ticks.slotNow(), server), ticks);
        LOG.log(System.Logger.Level.INFO, "Stock audit every " + period + " on " + server + " (clock " + clockLag + " behind)");
    }

    private static Duration duration(String key, String value) {
        try {
            return Duration.parse(value.strip());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(key + " must be an ISO-8601 duration such as PT1S, was '" + value + "'", e);
        }
    }

    @PreDestroy
    void stop() {
        ScheduledFuture<?> running = schedule;
        if (running != null) {
            running.cancel(false);
        }
    }

    /**
     * Runs the tick unless another server has it, and keeps it 800 ms (so a server up to 800 ms
     * behind skips it, and one tick a second still runs).
     *
     * @return {@code true}, or {@code null} when another server ran this tick
     */
    @Locked(value = "tick:stock-audit", waitTime = 0, onTimeout = OnTimeout.SKIP, holdAtLeast = 800)
    @Transactional
    public Boolean tick(long slot, String server) {
        entityManager.persist(new TickRun(slot, server));
        return Boolean.TRUE;
    }

    /** Every run so far, for {@code GET /api/ticks}. */
    public List<TickRun> runs() {
        return entityManager.createQuery("select t from TickRun t order by t.slot", TickRun.class).getResultList();
    }

    /** Fires at each whole period of a clock {@code lagMillis} behind the real one. */
    static final class WholePeriods implements Trigger {
        private final long periodMillis;
        private final long lagMillis;

        WholePeriods(long periodMillis, long lagMillis) {
            this.periodMillis = periodMillis;
            this.lagMillis = lagMillis;
        }

        /** The tick this server's clock is in now; a run up to 100 ms early still counts as its tick. */
        long slotNow() {
            return (System.currentTimeMillis() - lagMillis + 100) / periodMillis;
        }

        @Override
        public Date getNextRunTime(LastExecution last, Date scheduled) {
            long clock = System.currentTimeMillis() - lagMillis;
            return new Date((clock / periodMillis + 1) * periodMillis + lagMillis);
        }

        @Override
        public boolean skipRun(LastExecution last, Date scheduledRunTime) {
            return false;
        }
    }
}
