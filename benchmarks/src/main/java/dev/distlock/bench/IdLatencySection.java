package dev.distlock.bench;

import java.time.Duration;
import java.util.function.DoubleFunction;

/** The segment-id latency part of {@link BenchMain}: runs {@link IdLatencyDriver} and appends its two tables. */
final class IdLatencySection {

    private IdLatencySection() {
    }

    /**
     * Segment ids outside JMH ({@link IdLatencyDriver}): nextId() latency percentiles across range
     * refills, and store round trips per million ids, distlock next to Redisson's RIdGenerator.
     */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        long calls = quick ? 10_000 : Long.getLong("bench.ids.calls", 2_000_000);
        long roundTripIds = quick ? 10_000 : 1_000_000;
        long warmIds = quick ? 10_000 : 2_000_000;
        long jitWarmup = quick ? 0 : 200_000;
        Duration delay = Duration.ofMillis(Long.getLong("bench.ids.delay.ms", 2));
        long started = System.nanoTime();
        IdLatencyDriver.Report report = IdLatencyDriver.run(url,
                new IdLatencyDriver.Sizes(calls, roundTripIds, warmIds, jitWarmup, delay, !quick));
        System.out.printf("id latency and round trips took %.1f s%n", (System.nanoTime() - started) / 1e9);
        DoubleFunction<String> micros = value -> value < 10 ? String.format("%.2f", value)
                : value < 1_000 ? String.format("%.1f", value) : String.format("%,.0f", value);

        md.append("### nextId() latency across refills (segment ids, not JMH, every call timed)\n\n");
        md.append(String.format("%,d timed calls per row, shared by the threads, on a new generator after the ids ", calls))
                .append("taken untimed before (1: just the initial lease). Range size at start: distlock's step, Redisson's ")
                .append("allocation size. Store round trips: leases (distlock) or Redis script requests (Redisson) during the ")
                .append("timed calls. Waited: timed calls that began before the range their id came from was there. ")
                .append("Latencies include one System.nanoTime() read.\n\n");
        md.append("| generator | store | ids before | range size at start | threads | store round trips | waited | p50 µs | p99 µs | p99.9 µs | p99.99 µs | max µs |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (IdLatencyDriver.LatencyRow row : report.latency()) {
            md.append("| ").append(row.generator()).append(" | ").append(row.store())
                    .append(" | ").append(String.format("%,d", row.idsBefore()))
                    .append(" | ").append(String.format("%,d", row.rangeSize()))
                    .append(" | ").append(row.threads())
                    .append(" | ").append(String.format("%,d", row.storeRoundTrips()))
                    .append(" | ").append(String.format("%,d", row.waitedCalls()))
                    .append(" | ").append(micros.apply(row.micros(0.5))).append(" | ").append(micros.apply(row.micros(0.99)))
                    .append(" | ").append(micros.apply(row.micros(0.999))).append(" | ").append(micros.apply(row.micros(0.9999)))
                    .append(" | ").append(micros.apply(row.maxMicros())).append(" |\n");
        }
        md.append('\n');

        md.append(String.format("### Store round trips per million segment ids (new generator, %,d ids)%n%n", roundTripIds));
        md.append("| generator | store | threads | store round trips | per million ids | SQL statements + commits per million ids | range size at the end |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (IdLatencyDriver.RoundTripRow row : report.roundTrips()) {
            md.append("| ").append(row.generator()).append(" | ").append(row.store()).append(" | ").append(row.threads())
                    .append(" | ").append(String.format("%,d", row.storeRoundTrips()))
                    .append(" | ").append(String.format("%,.1f", row.perMillion()))
                    .append(" | ").append(row.sqlCalls() < 0 ? "-" : String.format("%,.1f", row.sqlPerMillion()))
                    .append(" | ").append(String.format("%,d", row.rangeSize())).append(" |\n");
        }
        md.append('\n');
    }
}
