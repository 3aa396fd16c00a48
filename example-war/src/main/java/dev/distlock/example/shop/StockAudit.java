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
 * one server run each tick. The lock's key names the tick (the whole period it was scheduled for,
 * on the firing server's clock), and {@code holdAtLeast} keeps it well after the quick run: a server
 * whose clock is behind ({@code shop.audit.clock-lag} pretends so), or whose scheduler fires a tick
 * late ({@code shop.audit.late-every} / {@code late-by} pretend so), finds that tick taken and
 * skips. Each run is a row of {@code shop_tick_run}, read by {@code GET /api/ticks}.
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
                 @ConfigProperty(name = "shop.audit.late-every", defaultValue = "0") int lateEvery,
                 @ConfigProperty(name = "shop.audit.late-by", defaultValue = "PT0S") String lateBySetting,
                 @ConfigProperty(name = "shop.server-name") Optional<String> serverName) {
        Duration period = duration("shop.audit.period", periodSetting);
        Duration clockLag = duration("shop.audit.clock-lag", clockLagSetting);
        Duration lateBy = duration("shop.audit.late-by", lateBySetting);
        if (period.isZero() || period.isNegative()) {
            return;
        }
        // An empty default counts as no value in MicroProfile Config (Payara Micro 6 then fails the deployment): Optional.
        String server = serverName.orElse("pid-" + ProcessHandle.current().pid());
        WholePeriods ticks = new WholePeriods(period.toMillis(), clockLag.toMillis());
        schedule = scheduler.schedule(() -> {
            long slot = ticks.scheduledSlot();
            if (lateEvery > 0 && slot % lateEvery == 0) {
                pause(lateBy); // as a busy scheduler would start it
            }
            self.tick(slot, server);
        }, ticks);
        LOG.log(System.Logger.Level.INFO, "Stock audit every " + period + " on " + server + " (clock " + clockLag + " behind"
                + (lateEvery > 0 ? ", every " + lateEvery + "th tick " + lateBy + " late)" : ")"));
    }

    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
     * Runs the tick unless another server has it, and keeps that tick's lock 30 s: a server that
     * fires the same tick up to 30 s late (its clock behind, its scheduler busy) skips it. Each tick
     * has a lock of its own, so keeping one long holds up no other.
     *
     * @param slot the tick: the whole period it was scheduled for
     * @return {@code true}, or {@code null} when another server ran this tick
     */
    @Locked(value = "tick:stock-audit:{slot}", waitTime = 0, onTimeout = OnTimeout.SKIP, holdAtLeast = 30_000)
    @Transactional
    public Boolean tick(long slot, String server) {
        entityManager.persist(new TickRun(slot, server));
        return Boolean.TRUE;
    }

    /** Every run so far, for {@code GET /api/ticks}. */
    public List<TickRun> runs() {
        return entityManager.createQuery("select t from TickRun t order by t.slot", TickRun.class).getResultList();
    }

    /**
     * Fires at each whole period of a clock {@code lagMillis} behind the real one, and tells the run
     * which period it was scheduled for: a run that starts late is still its own tick.
     */
    static final class WholePeriods implements Trigger {
        private final long periodMillis;
        private final long lagMillis;
        /** When the run about to start was scheduled, on the real clock; set just before it starts. */
        private volatile long scheduledMillis;

        WholePeriods(long periodMillis, long lagMillis) {
            this.periodMillis = periodMillis;
            this.lagMillis = lagMillis;
        }

        /** The tick the current run was scheduled for, on this server's (lagging) clock. */
        long scheduledSlot() {
            return Math.round((scheduledMillis - lagMillis) / (double) periodMillis);
        }

        @Override
        public Date getNextRunTime(LastExecution last, Date scheduled) {
            long clock = System.currentTimeMillis() - lagMillis;
            return new Date((clock / periodMillis + 1) * periodMillis + lagMillis);
        }

        /** Called just before each run with the time it was scheduled for. */
        @Override
        public boolean skipRun(LastExecution last, Date scheduledRunTime) {
            scheduledMillis = scheduledRunTime.getTime();
            return false;
        }
    }
}
