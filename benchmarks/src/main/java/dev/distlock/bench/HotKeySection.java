package dev.distlock.bench;

import dev.distlock.testkit.DelayingProxy;
import dev.distlock.testkit.OneWayDelays;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The hot-key part of {@link BenchMain}: rounds of {@link HotKeyDriver} runs, raw then distlock, on
 * loopback and with Redis across a network; appends their tables, writes the plot, and checks every
 * round's invariants.
 */
final class HotKeySection {

    private HotKeySection() {
    }

    /**
     * {@link HotKeyDriver}: for each T, {@code bench.hot.rounds} rounds (3; 1 with {@code bench.quick})
     * of raw then distlock. One 5 s run moves by ± 20 % from the next on this machine, so the table
     * shows the round whose ratio is the median, and a line per T gives every round's ratio.
     *
     * @throws IllegalStateException after appending the table, if any round saw an exclusion
     *                               violation or a counter that does not match its sections
     */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        int start = md.length();
        int jvms = Integer.getInteger("bench.hot.jvms", 2);
        long millis = quick ? 500 : Long.getLong("bench.hot.seconds", 5) * 1000;
        int rounds = quick ? 1 : Integer.getInteger("bench.hot.rounds", 3);
        String threadList = quick ? "2" : System.getProperty("bench.hot.threads", "1,4,16,64");
        List<Integer> threadCounts = new ArrayList<>();
        for (String part : threadList.split(",")) {
            threadCounts.add(Integer.parseInt(part.strip()));
        }
        Path work = Path.of("target", "hotkey");
        md.append("### Hot key across processes (").append(jvms).append(" JVMs × T threads, one key, ")
                .append(millis / 1000.0).append(" s each, ").append(rounds).append(rounds == 1 ? " round" : " rounds")
                .append(")\n\n");
        md.append("Critical section: one Redis INCR, inside a marker shared by the JVMs through a mapped file ")
                .append("(an overlap of holders is a violation). Wait = time from asking for the lock to holding it. ")
                .append("Via Redis = share of sections whose lock came from Redis rather than from a local handoff. ")
                .append("Each round runs raw, then distlock, each in fresh JVMs that first warm up contending for another ")
                .append("key; then the same for fenced locks (raw-fenced: Redisson's RFencedLock, lockAndGetToken; ")
                .append("distlock-fenced: fenced(), which hands the tenure and its token on locally), unless ")
                .append("bench.hot.fenced=false; shown: the round whose ratio is the median, every round's ratio below.\n\n");
        md.append("| T | impl | sections/s | p50 wait ms | p99 wait ms | share per JVM | via Redis | violations | counter = sections | distlock/raw |\n");
        md.append("|---:|---|---:|---:|---:|---|---:|---:|---|---:|\n");
        List<HotKeyDriver.Row> plotted = new ArrayList<>();
        StringBuilder perRound = new StringBuilder();
        List<String> problems = new ArrayList<>();
        // Each pair: raw Redisson and distlock, plain (RLock) and fenced (RFencedLock, a token per holder).
        List<String[]> kinds = Boolean.parseBoolean(System.getProperty("bench.hot.fenced", "true"))
                ? List.of(new String[] {"raw", "distlock"}, new String[] {"raw-fenced", "distlock-fenced"})
                : List.<String[]>of(new String[] {"raw", "distlock"});
        for (int threads : threadCounts) {
            for (String[] kind : kinds) {
                HotKeyDriver.Row[] median = hotPairs(url, "", jvms, threads, millis, rounds, kind, work, perRound, problems);
                hotRow(md, "", median[0], "");
                hotRow(md, "", median[1], String.format("%.2f", hotRatio(median)));
                if (kind[0].equals("raw")) { // the plot shows the plain pair
                    plotted.add(median[0]);
                    plotted.add(median[1]);
                }
            }
        }
        md.append("\ndistlock/raw in each round, in order: ").append(perRound.toString().strip()).append("\n\n");
        Path plot = Path.of(System.getProperty("bench.plot", "target/hotkey.svg"));
        HotKeyPlot.write(plotted, "One hot key, " + jvms + " JVMs: throughput against threads per JVM", plot);
        md.append("Plot: `").append(plot).append("`\n\n");
        appendHotKeyDelayed(md, url, quick, jvms, millis, rounds, kinds, work, problems);
        if (!problems.isEmpty()) {
            System.out.println(md.substring(start));
            throw new IllegalStateException("hot-key invariants broken: " + String.join("; ", problems));
        }
    }

    /**
     * The hot key with Redis across a network: the children reach Redis through a {@link DelayingProxy}
     * that holds every byte back by a one-way delay, {@code bench.hot.delays} milliseconds ({@code 0.25,1};
     * {@code 1} with {@code bench.quick}; {@code 0} or empty for none), with {@code bench.hot.delay.threads}
     * threads per JVM (16; 2 with {@code bench.quick}, which also leaves out the fenced pair: the smoke run
     * only shows the mode works).
     */
    private static void appendHotKeyDelayed(StringBuilder md, String url, boolean quick, int jvms, long millis, int rounds,
                                            List<String[]> kinds, Path work, List<String> problems) throws Exception {
        List<Duration> delays;
        try {
            delays = OneWayDelays.parse(System.getProperty("bench.hot.delays", quick ? "1" : "0.25,1"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bench.hot.delays: " + e.getMessage(), e);
        }
        if (delays.isEmpty()) {
            return;
        }
        int threads = quick ? 2 : Integer.getInteger("bench.hot.delay.threads", 16);
        List<String[]> delayedKinds = quick ? kinds.subList(0, 1) : kinds;
        URI redis = URI.create(url);
        md.append("#### The same with Redis across a network (").append(jvms).append(" JVMs × ").append(threads)
                .append(" threads)\n\nEvery byte between the children and Redis goes through a proxy on this machine that ")
                .append("delivers it a fixed one-way delay after it arrived (test kit's DelayingProxy): a round trip ")
                .append("costs at least twice the delay, as across a network. Same rounds and median as above.\n\n");
        md.append("| one-way delay | T | impl | sections/s | p50 wait ms | p99 wait ms | share per JVM | via Redis | violations | counter = sections | distlock/raw |\n");
        md.append("|---:|---:|---|---:|---:|---:|---|---:|---:|---|---:|\n");
        StringBuilder perRound = new StringBuilder();
        for (Duration delay : delays) {
            String label = OneWayDelays.millis(delay) + " ms";
            try (DelayingProxy proxy = DelayingProxy.start(redis.getHost(), redis.getPort(), delay)) {
                String through = url.replace(redis.getHost() + ":" + redis.getPort(), "127.0.0.1:" + proxy.port());
                for (String[] kind : delayedKinds) {
                    HotKeyDriver.Row[] median = hotPairs(through, label + ", ", jvms, threads, millis, rounds, kind, work,
                            perRound, problems);
                    hotRow(md, label, median[0], "");
                    hotRow(md, label, median[1], String.format("%.2f", hotRatio(median)));
                }
            }
        }
        md.append("\ndistlock/raw in each round, in order: ").append(perRound.toString().strip()).append("\n\n");
    }

    /**
     * {@code rounds} rounds of {@code kind[0]} (raw) then {@code kind[1]} (distlock); notes every
     * round's ratio in {@code perRound} and every broken invariant in {@code problems}.
     *
     * @return the pair whose ratio is the median
     */
    private static HotKeyDriver.Row[] hotPairs(String url, String label, int jvms, int threads, long millis, int rounds,
                                               String[] kind, Path work, StringBuilder perRound, List<String> problems)
            throws Exception {
        List<HotKeyDriver.Row[]> pairs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            HotKeyDriver.Row raw = HotKeyDriver.run(kind[0], url, jvms, threads, millis, work);
            System.out.println("hot key " + label + kind[0] + " T=" + threads + " round " + round + ": " + raw);
            HotKeyDriver.Row distlock = HotKeyDriver.run(kind[1], url, jvms, threads, millis, work);
            System.out.println("hot key " + label + kind[1] + " T=" + threads + " round " + round + ": " + distlock);
            pairs.add(new HotKeyDriver.Row[] {raw, distlock});
            for (HotKeyDriver.Row row : List.of(raw, distlock)) {
                if (row.violations() != 0 || row.counter() != row.ops()) {
                    problems.add(label + row.impl() + " T=" + threads + " round " + round + ": " + row.violations()
                            + " violations, counter " + row.counter() + " for " + row.ops() + " sections");
                }
            }
        }
        List<HotKeyDriver.Row[]> byRatio = new ArrayList<>(pairs);
        byRatio.sort(Comparator.comparingDouble(HotKeySection::hotRatio));
        perRound.append(label).append("T = ").append(threads).append(", ").append(kind[1]).append(": ");
        for (int i = 0; i < pairs.size(); i++) {
            perRound.append(i == 0 ? "" : ", ").append(String.format("%.2f", hotRatio(pairs.get(i))));
        }
        perRound.append(" (").append(kind[0]).append(" ").append(sectionsPerSecond(pairs, 0)).append(", ")
                .append(kind[1]).append(" ").append(sectionsPerSecond(pairs, 1)).append(" sections/s). ");
        return byRatio.get(byRatio.size() / 2);
    }

    private static double hotRatio(HotKeyDriver.Row[] pair) {
        return pair[1].throughput() / pair[0].throughput();
    }

    private static String sectionsPerSecond(List<HotKeyDriver.Row[]> pairs, int impl) {
        StringBuilder text = new StringBuilder();
        for (HotKeyDriver.Row[] pair : pairs) {
            text.append(text.length() == 0 ? "" : " / ").append(String.format("%,.0f", pair[impl].throughput()));
        }
        return text.toString();
    }

    /** @param delay the one-way delay's cell, for the table across a network; empty for the loopback table */
    private static void hotRow(StringBuilder md, String delay, HotKeyDriver.Row row, String ratio) {
        md.append(delay.isEmpty() ? "| " : "| " + delay + " | ").append(row.threads()).append(" | ").append(row.impl()).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ")
                .append(String.format("%.2f", row.p50Micros() / 1000.0)).append(" | ")
                .append(String.format("%.2f", row.p99Micros() / 1000.0)).append(" | ")
                .append(row.shares()).append(" | ")
                // handoffs also count sections that ended after the deadline, so ops - handoffs can dip below 0
                .append(row.ops() == 0 ? "-" : String.format("%.0f%%", 100.0 * Math.max(0, row.ops() - row.handoffs()) / row.ops()))
                .append(" | ").append(row.violations()).append(" | ")
                .append(row.counter() == row.ops() ? "yes" : "NO (" + row.counter() + " vs " + row.ops() + ")")
                .append(" | ").append(ratio).append(" |\n");
    }
}
