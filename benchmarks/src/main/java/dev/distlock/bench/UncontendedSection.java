package dev.distlock.bench;

import java.util.ArrayList;
import java.util.List;

/** The uncontended part of {@link BenchMain}: runs sets of {@link UncontendedAb} JVMs and appends their tables. */
final class UncontendedSection {

    private UncontendedSection() {
    }

    /**
     * {@link UncontendedAb}: one JVM per variant, taking turns; several sets of JVMs one after the
     * other, since each JVM compiles the same code a little differently. Properties (ignored with
     * {@code bench.quick}): {@code bench.uncontended.sets} (5), {@code bench.uncontended.rounds} (40),
     * {@code bench.uncontended.slice} (500 calls), {@code bench.uncontended.warmup} (80 rounds).
     */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        int sets = quick ? 1 : Integer.getInteger("bench.uncontended.sets", 5);
        int rounds = quick ? 2 : Integer.getInteger("bench.uncontended.rounds", 40);
        int slice = quick ? 50 : Integer.getInteger("bench.uncontended.slice", 500);
        int warmRounds = quick ? 1 : Integer.getInteger("bench.uncontended.warmup", 80);
        md.append("### Uncontended calls, one JVM per variant, taking turns\n\n");
        md.append("Each variant in a JVM of its own (one key, watchdog lease, empty critical section), raw twice as a "
                + "control; the JVMs run ")
                .append(slice).append(" calls at a time, one after the other in an order shuffled every round: ").append(warmRounds)
                .append(" rounds of warm-up, then ").append(rounds).append(" measured rounds, every call timed. ")
                .append(sets).append(sets == 1 ? " set" : " sets").append(" of JVMs, one after the other.\n\n");
        List<List<UncontendedAb.Row>> results = new ArrayList<>();
        for (int set = 1; set <= sets; set++) {
            List<UncontendedAb.Row> rows = UncontendedAb.run(url, rounds, slice, warmRounds);
            results.add(rows);
            String table = UncontendedAb.format(rows);
            System.out.print("uncontended, set " + set + ":\n" + table);
            md.append("Set ").append(set).append(":\n\n").append(table).append('\n');
        }
        if (sets > 1) {
            md.append(UncontendedAb.summary(results)).append("\n\n");
        }
    }
}
