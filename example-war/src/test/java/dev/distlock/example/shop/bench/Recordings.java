package dev.distlock.example.shop.bench;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The servers' flight recordings of one variant, read once: distlock's lock and transaction
 * events, the shop's bench sections, and the socket reads and writes to the database. Each server
 * records with {@link #SETTINGS} from its start and writes its file when it stops; {@link #breakdown}
 * then picks one storm's events out by its SKU and its time.
 */
final class Recordings {

    /** The events the servers record, every one of them (threshold 0), without stack traces. */
    static final String SETTINGS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration version="2.0" label="shop-bench sections">
              <event name="distlock.LockWait"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="distlock.LockHold"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="distlock.LockedTransaction"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="distlock.CommitCheck"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="distlock.CombinedBatch"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="shop.BenchSection"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="jdk.SocketRead"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting><setting name="stackTrace">false</setting></event>
              <event name="jdk.SocketWrite"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting><setting name="stackTrace">false</setting></event>
            </configuration>
            """;

    /** One event: on which thread of which server, from when to when (ns since the epoch), and its fields. */
    private record Span(long thread, long start, long end, String type, String lock, String detail, long value) {
        long duration() {
            return end - start;
        }
    }

    private final List<Span> holds = new ArrayList<>();
    private final List<Span> waits = new ArrayList<>();
    /** Transactions and checks by thread, in time order. */
    private final Map<Long, List<Span>> transactions = new HashMap<>();
    private final Map<Long, List<Span>> checks = new HashMap<>();
    private final List<Span> benchSections = new ArrayList<>();
    /** Combined batches, their size as the value. */
    private final List<Span> batches = new ArrayList<>();
    /** Socket events to the database, by thread, in time order. */
    private final Map<Long, List<Span>> database = new HashMap<>();

    /**
     * @param files        the servers' recordings
     * @param databasePort the database's port (its socket events are kept); 0 for none
     */
    Recordings(List<Path> files, int databasePort) {
        for (int server = 0; server < files.size(); server++) {
            read(files.get(server), server, databasePort);
        }
        for (Map<Long, List<Span>> byThread : List.of(database, transactions, checks)) {
            byThread.values().forEach(spans -> spans.sort(Comparator.comparingLong(Span::start)));
        }
    }

    /** Every {@code .jfr} file under {@code directory}. */
    static List<Path> filesIn(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".jfr")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void read(Path file, int server, int databasePort) {
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                String type = event.getEventType().getName();
                switch (type) {
                    case "distlock.LockHold" -> {
                        // The storm's restock takes the SKU's lock too: only orders count.
                        if (!event.getString("site").startsWith("StockLedger")) {
                            holds.add(span(event, server, event.getString("lock"), event.getString("release"), 0));
                        }
                    }
                    case "distlock.LockWait" -> waits.add(span(event, server, event.getString("lock"), event.getString("outcome"),
                            event.getLong("handover")));
                    case "distlock.LockedTransaction" -> byThread(transactions, span(event, server, null, null, 0));
                    case "distlock.CommitCheck" -> byThread(checks, span(event, server, null, event.getString("proof"), 0));
                    case "distlock.CombinedBatch" -> batches.add(span(event, server, event.getString("lock"), event.getString("outcome"),
                            event.getInt("size")));
                    case "shop.BenchSection" -> benchSections.add(span(event, server, event.getString("sku"),
                            event.getString("desk"), event.getLong("transaction")));
                    case "jdk.SocketRead", "jdk.SocketWrite" -> {
                        if (databasePort != 0 && event.getInt("port") == databasePort) {
                            byThread(database, span(event, server, null, type, 0));
                        }
                    }
                    default -> {
                        // not used
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the recording " + file, e);
        }
    }

    private static void byThread(Map<Long, List<Span>> index, Span span) {
        index.computeIfAbsent(span.thread(), thread -> new ArrayList<>()).add(span);
    }

    private static Span span(RecordedEvent event, int server, String lock, String detail, long value) {
        RecordedThread thread = event.getThread();
        long threadId = ((long) server << 48) | (thread == null ? 0 : thread.getJavaThreadId());
        return new Span(threadId, nanos(event.getStartTime()), nanos(event.getEndTime()), event.getEventType().getName(),
                lock, detail, value);
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    /**
     * The sections of the storm on {@code sku} (each storm has a SKU of its own), and where their
     * time went.
     */
    SectionBreakdown breakdown(String sku) {
        String stock = "stock:" + sku;
        List<Span> distlock = holds.stream().filter(hold -> onSku(hold.lock(), stock)).toList();
        if (!distlock.isEmpty()) {
            return ofDistlock(distlock, stock);
        }
        List<Span> others = benchSections.stream().filter(section -> sku.equals(section.lock())).toList();
        return others.isEmpty() ? SectionBreakdown.NONE : ofOthers(others);
    }

    /** The combined batches of the storm on {@code sku}; {@link BatchSizes#NONE} when it had none. */
    BatchSizes batches(String sku) {
        String stock = "stock:" + sku;
        List<Span> storm = batches.stream().filter(batch -> onSku(batch.lock(), stock)).toList();
        int[] sizes = storm.stream().mapToInt(batch -> (int) batch.value()).toArray();
        long[] database = databaseTotals(storm);
        return BatchSizes.of(sizes, database[1], database[0]);
    }

    /** {@code shop:lock:stock:SKU} or one of its stripes, {@code shop:lock:stock:SKU:3}; not {@code stock:SKU2}. */
    private static boolean onSku(String lock, String stock) {
        int at = lock.indexOf(stock);
        if (at < 0) {
            return false;
        }
        int after = at + stock.length();
        return after == lock.length() || lock.charAt(after) == ':';
    }

    private SectionBreakdown ofDistlock(List<Span> sections, String stock) {
        double lockToTransaction = 0;
        double transaction = 0;
        double toRelease = 0;
        int withTransaction = 0;
        double check = 0;
        int checked = 0;
        int byLease = 0;
        for (Span hold : sections) {
            Span inside = first(transactions, hold);
            if (inside != null) {
                withTransaction++;
                lockToTransaction += inside.start() - hold.start();
                transaction += inside.duration();
                toRelease += hold.end() - inside.end();
                Span verified = first(checks, inside);
                if (verified != null) {
                    checked++;
                    check += verified.duration();
                    byLease += "lease".equals(verified.detail()) ? 1 : 0;
                }
            }
        }
        List<Span> stormWaits = waits.stream().filter(wait -> onSku(wait.lock(), stock)).toList();
        long[] wakes = stormWaits.stream().filter(wait -> "handed over".equals(wait.detail())).mapToLong(Span::value).sorted().toArray();
        long fromStore = stormWaits.stream().filter(wait -> "from store".equals(wait.detail())).count();
        double[] database = databaseIn(sections);
        return new SectionBreakdown(sections.size(), mean(sections), handover(sections), millis(lockToTransaction, withTransaction),
                millis(transaction, withTransaction), database[0], database[1], checked == 0 ? Double.NaN : check / checked / 1e3,
                checked == 0 ? Double.NaN : (double) byLease / checked, millis(toRelease, withTransaction),
                quantileMillis(wakes, 0.5), quantileMillis(wakes, 0.99),
                stormWaits.isEmpty() ? Double.NaN : (double) fromStore / stormWaits.size());
    }

    private SectionBreakdown ofOthers(List<Span> sections) {
        double transaction = sections.stream().mapToLong(Span::value).average().orElse(Double.NaN) / 1e6;
        boolean rowLock = "row-lock".equals(sections.get(0).detail());
        double[] database = databaseIn(sections);
        double section = mean(sections);
        return new SectionBreakdown(sections.size(), section, handover(sections), Double.NaN, transaction, database[0], database[1],
                Double.NaN, Double.NaN, rowLock ? Double.NaN : section - transaction, Double.NaN, Double.NaN, Double.NaN);
    }

    /** Mean database time and socket reads per section, on the section's own thread. */
    private double[] databaseIn(List<Span> sections) {
        long[] totals = databaseTotals(sections);
        return new double[] {(double) totals[0] / sections.size() / 1e6, (double) totals[1] / sections.size()};
    }

    /** Database time (ns) and socket reads within {@code sections}, each on its own thread. */
    private long[] databaseTotals(List<Span> sections) {
        long time = 0;
        long reads = 0;
        for (Span section : sections) {
            List<Span> onThread = database.getOrDefault(section.thread(), List.of());
            for (int i = firstStartingAt(onThread, section.start()); i < onThread.size(); i++) {
                Span io = onThread.get(i);
                if (io.start() > section.end()) {
                    break;
                }
                if (io.end() <= section.end()) {
                    time += io.duration();
                    reads += io.type().equals("jdk.SocketRead") ? 1 : 0;
                }
            }
        }
        return new long[] {time, reads};
    }

    /** Mean time a lock was free between one section and the next on it, 0 where they overlap. */
    private static double handover(List<Span> sections) {
        Map<String, List<Span>> byLock = new HashMap<>();
        sections.forEach(section -> byLock.computeIfAbsent(section.lock(), lock -> new ArrayList<>()).add(section));
        double free = 0;
        int gaps = 0;
        for (List<Span> onOneLock : byLock.values()) {
            List<Span> ordered = new ArrayList<>(onOneLock);
            ordered.sort(Comparator.comparingLong(Span::start));
            for (int i = 1; i < ordered.size(); i++) {
                free += Math.max(0, ordered.get(i).start() - ordered.get(i - 1).end());
                gaps++;
            }
        }
        return gaps == 0 ? Double.NaN : free / gaps / 1e6;
    }

    /** The first event of {@code byThread} on {@code outer}'s thread that starts within it. */
    private static Span first(Map<Long, List<Span>> byThread, Span outer) {
        List<Span> onThread = byThread.getOrDefault(outer.thread(), List.of());
        int index = firstStartingAt(onThread, outer.start());
        if (index < onThread.size() && onThread.get(index).start() <= outer.end()) {
            return onThread.get(index);
        }
        return null;
    }

    /** The index of the first span of {@code sorted} (by start) that starts at or after {@code nanos}. */
    private static int firstStartingAt(List<Span> sorted, long nanos) {
        int low = 0;
        int high = sorted.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (sorted.get(middle).start() < nanos) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    private static double mean(List<Span> spans) {
        return spans.stream().mapToLong(Span::duration).average().orElse(Double.NaN) / 1e6;
    }

    private static double millis(double totalNanos, int count) {
        return count == 0 ? Double.NaN : totalNanos / count / 1e6;
    }

    private static double quantileMillis(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    @Override
    public String toString() {
        return "Recordings[" + holds.size() + " holds, " + count(transactions) + " transactions, " + benchSections.size()
                + " bench sections, " + batches.size() + " combined batches, " + count(database) + " database socket events]";
    }

    private static int count(Map<Long, List<Span>> byThread) {
        return byThread.values().stream().mapToInt(List::size).sum();
    }
}
