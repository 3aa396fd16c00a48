package dev.distlock.internal.cdi.observability;

import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.internal.cdi.Memo;
import dev.distlock.internal.core.LockTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Each locked call as a span on the current trace, through MicroProfile Telemetry (OpenTelemetry)
 * where the runtime has it and samples the trace: named {@code lock <template>}, a child of the
 * span current where the call began (the request's), from asking for the locks until they are
 * released, left to the transaction active at entry, or the returned stage has completed.
 * Recorded:
 * <ul>
 *   <li>{@code distlock.lock.mode}: {@code exclusive}, {@code read}, {@code write};</li>
 *   <li>{@code distlock.lock.method}: the locked method ({@code Shop.order(String,int)}), or
 *       {@code DistributedLocks.exclusive(...)} for the programmatic API;</li>
 *   <li>{@code distlock.lock.template}: the key's template as written ({@code stock:{sku}}; several
 *       joined by {@code ", "}), never the rendered key, which holds the call's values; absent for
 *       the programmatic API, whose keys are the application's own values;</li>
 *   <li>{@code distlock.lock.wait}: seconds from asking to holding every lock, or to giving up;</li>
 *   <li>{@code distlock.lock.source}: {@code store} (taken from Redis, ZooKeeper or the database),
 *       {@code local} (handed on by the previous holder in this JVM), {@code reentered} (the call's
 *       own chain held it); for several locks, the first of these that applies to any;</li>
 *   <li>{@code distlock.lock.node}: the server that asks for and holds the locks, by the name it
 *       goes by in the store ({@code distlock.node-name}, by default the host's), the name
 *       {@code inspect} and forced releases give its holders;</li>
 *   <li>{@code distlock.lock.token}: the fencing token, for a fenced lock (the last one taken);</li>
 *   <li>{@code distlock.lock.outcome}: {@code acquired}, {@code timed_out}, {@code lost} (found gone
 *       at release), {@code unavailable} (the store did not answer), or {@code failed} (the locks
 *       could not be asked for, e.g. a blank key value). The span's status is an error when the
 *       outcome is what the caller sees thrown; the locked method's own exception is not the lock's,
 *       and leaves the status unset.</li>
 * </ul>
 */
@ApplicationScoped
public class LockTracer implements LockTracing {

    private static final System.Logger LOG = System.getLogger(LockTracer.class.getName());
    private static final AttributeKey<String> MODE = AttributeKey.stringKey("distlock.lock.mode");
    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("distlock.lock.method");
    private static final AttributeKey<String> TEMPLATE = AttributeKey.stringKey("distlock.lock.template");
    private static final AttributeKey<Double> WAIT = AttributeKey.doubleKey("distlock.lock.wait");
    private static final AttributeKey<String> SOURCE = AttributeKey.stringKey("distlock.lock.source");
    private static final AttributeKey<Long> TOKEN = AttributeKey.longKey("distlock.lock.token");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("distlock.lock.outcome");
    private static final AttributeKey<String> NODE = AttributeKey.stringKey("distlock.lock.node");
    private static final double NANOS_PER_SECOND = 1_000_000_000d;

    /** Span names by template (or site, for the programmatic API): made once, not per call. */
    private final Map<String, String> names = new ConcurrentHashMap<>();
    private final Supplier<Tracer> tracer;
    /** The server that holds the locks this tracer tells of ({@code distlock.node-name}), from the engine. */
    private volatile String nodeName;

    /** The API may be present without an implementation: then nothing is traced. */
    @Inject
    LockTracer(Instance<OpenTelemetry> telemetry) {
        this.tracer = new Memo<>(() -> tracerOf(telemetry));
    }

    /** For proxies only. */
    protected LockTracer() {
        this.tracer = null;
    }

    private static Tracer tracerOf(Instance<OpenTelemetry> telemetry) {
        try {
            // A runtime whose SDK is off (otel.sdk.disabled=true, MicroProfile Telemetry's default)
            // gives the no-op provider: then not even a span builder per call.
            TracerProvider provider = telemetry.isResolvable() ? telemetry.get().getTracerProvider() : null;
            return provider == null || provider == TracerProvider.noop() ? null : provider.get("dev.distlock");
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "distlock: no lock spans through OpenTelemetry: " + e);
            return null;
        }
    }

    @Override
    public void nodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    @Override
    public Trace begin(String site, LockMode mode, String template) {
        try {
            Tracer spans = tracer.get();
            if (spans == null) {
                return null;
            }
            String named = template != null ? template : site;
            String name = names.get(named);
            if (name == null) {
                name = names.computeIfAbsent(named, "lock "::concat);
            }
            Span span = spans.spanBuilder(name)
                    .setSpanKind(SpanKind.INTERNAL)
                    .setAttribute(MODE, mode.name().toLowerCase(Locale.ROOT))
                    .setAttribute(METHOD, site)
                    .startSpan();
            if (!span.isRecording()) {
                return null; // not sampled: nothing to tell
            }
            if (template != null) {
                span.setAttribute(TEMPLATE, template);
            }
            String node = nodeName;
            if (node != null) {
                span.setAttribute(NODE, node);
            }
            return new SpanTrace(span);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "distlock: a lock span could not be started: " + e);
            return null;
        }
    }

    /** One call's span; told by the call's thread, then ended by it or by the thread completing its stage. */
    private static final class SpanTrace implements Trace {
        private final Span span;
        private final long startedNanos = System.nanoTime();
        private long waitedNanos = -1;
        private Source source;
        private long token;
        private boolean timedOut;

        SpanTrace(Span span) {
            this.span = span;
        }

        @Override
        public void took(Source how, long fencingToken) {
            waitedNanos = System.nanoTime() - startedNanos;
            if (source == null || how.compareTo(source) > 0) {
                source = how;
            }
            if (fencingToken != 0) {
                token = fencingToken;
            }
        }

        @Override
        public void timedOut() {
            waitedNanos = System.nanoTime() - startedNanos;
            timedOut = true;
        }

        @Override
        public void ended(Throwable failure) {
            try {
                if (waitedNanos >= 0) {
                    span.setAttribute(WAIT, waitedNanos / NANOS_PER_SECOND);
                }
                if (source != null) {
                    span.setAttribute(SOURCE, source.name().toLowerCase(Locale.ROOT));
                }
                if (token != 0) {
                    span.setAttribute(TOKEN, token);
                }
                String outcome = outcome(failure);
                span.setAttribute(OUTCOME, outcome);
                if (failure != null && !outcome.equals("acquired")) {
                    span.setStatus(StatusCode.ERROR, outcome);
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "distlock: a lock span could not be told its outcome: " + e);
            } finally {
                span.end();
            }
        }

        /** Before the locks were held, what stopped the call; after, what the release found. */
        private String outcome(Throwable failure) {
            if (timedOut) {
                return "timed_out";
            }
            if (source == null) {
                if (failure instanceof LockTimeoutException) {
                    return "timed_out";
                }
                return failure instanceof LockServiceUnavailableException ? "unavailable" : "failed";
            }
            if (failure == null) {
                return "acquired";
            }
            if (isOrSuppresses(failure, LockLostException.class)) {
                return "lost";
            }
            return isOrSuppresses(failure, LockServiceUnavailableException.class) ? "unavailable" : "acquired";
        }

        private static boolean isOrSuppresses(Throwable failure, Class<? extends Throwable> type) {
            if (type.isInstance(failure)) {
                return true;
            }
            for (Throwable suppressed : failure.getSuppressed()) {
                if (type.isInstance(suppressed)) {
                    return true;
                }
            }
            return false;
        }
    }
}
