package dev.distlock.idsoak;

import dev.distlock.testkit.Directories;
import dev.distlock.testkit.ChildJvm;

import dev.distlock.id.IdStrategy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Starts {@code jvms} {@link IdSoakChild} JVMs on one generator name, releases them together,
 * waits for them, then reads every id they wrote and counts duplicates. Every child is gone and
 * every file deleted when {@link #run()} returns or throws.
 *
 * @param store      Redis URL (SNOWFLAKE) or JDBC URL (SEGMENT)
 * @param keyOrTable Redis key prefix (SNOWFLAKE) or segment table (SEGMENT)
 * @param timeout    how long the whole run may take, JVM start-up included; then the children are killed
 */
record IdSoakRun(IdStrategy strategy, String store, String name, String keyOrTable, int jvms, int threads, int perThread,
                 Duration timeout) {

    private static final long CHILD_DEADLINE_MARGIN_MILLIS = 10_000;

    Outcome run() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("distlock-idsoak-" + strategy.name().toLowerCase() + "-");
        long deadline = System.nanoTime() + timeout.toNanos();
        long started = System.nanoTime();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 1; i <= jvms; i++) {
                String jvm = "jvm-" + i;
                children.add(ChildJvm.start(jvm, IdSoakChild.class, List.of(strategy.name(), store, name, keyOrTable,
                        Integer.toString(threads), Integer.toString(perThread), dir.toString(), jvm,
                        Long.toString(timeout.toMillis() + CHILD_DEADLINE_MARGIN_MILLIS), Long.toString(ProcessHandle.current().pid()))));
            }
            awaitReady(dir, children, deadline);
            long released = System.nanoTime();
            Files.createFile(dir.resolve(IdSoakChild.GO_FILE));
            for (ChildJvm child : children) {
                if (!child.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw failure("the soak did not finish within " + timeout + "; killed the children", children);
                }
            }
            long finished = System.nanoTime();
            List<ChildReport> reports = new ArrayList<>();
            for (ChildJvm child : children) {
                String output = child.output();
                reports.add(new ChildReport(child.name, child.process.exitValue(), output, Result.find(output)));
            }
            long[] ids = readAll(dir);
            long duplicates = countDuplicates(ids);
            return new Outcome(this, reports, ids.length, duplicates, TimeUnit.NANOSECONDS.toMillis(finished - released),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } finally {
            for (ChildJvm child : children) {
                child.kill();
                child.deleteOutput();
            }
            Directories.deleteQuietly(dir);
        }
    }

    private void awaitReady(Path dir, List<ChildJvm> children, long deadline) throws IOException, InterruptedException {
        while (true) {
            long ready;
            try (Stream<Path> files = Files.list(dir)) {
                ready = files.filter(file -> file.getFileName().toString().endsWith(IdSoakChild.READY_SUFFIX)).count();
            }
            if (ready == jvms) {
                return;
            }
            for (ChildJvm child : children) {
                if (!child.process.isAlive()) {
                    throw failure(child.name + " exited with " + child.process.exitValue() + " before the start", children);
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure("the children were not all ready within " + timeout, children);
            }
            Thread.sleep(10);
        }
    }

    private static long[] readAll(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(file -> file.getFileName().toString().endsWith(IdSoakChild.IDS_SUFFIX)).sorted().toList();
        }
        long bytes = 0;
        for (Path file : files) {
            bytes += Files.size(file);
        }
        long[] ids = new long[Math.toIntExact(bytes / Long.BYTES)];
        int at = 0;
        for (Path file : files) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(channel.size()));
                while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                    // read it all
                }
                buffer.flip();
                int count = buffer.remaining() / Long.BYTES;
                buffer.asLongBuffer().get(ids, at, count);
                at += count;
            }
        }
        return ids;
    }

    /** Sorts in place and counts ids equal to the one before. */
    private static long countDuplicates(long[] ids) {
        Arrays.parallelSort(ids);
        long duplicates = 0;
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1]) {
                duplicates++;
            }
        }
        return duplicates;
    }

    private static AssertionError failure(String what, List<ChildJvm> children) {
        StringBuilder message = new StringBuilder(what);
        for (ChildJvm child : children) {
            child.kill();
            message.append("\n----- ").append(child.name).append(" (exit ")
                    .append(child.process.isAlive() ? "none, still alive" : child.process.exitValue())
                    .append(") -----\n").append(child.output());
        }
        return new AssertionError(message.toString());
    }


    /** What one child printed on its result line. */
    record Result(String jvm, long ids, long errors, long nonIncreasing, long elapsedMillis, String worker) {

        static Optional<Result> find(String output) {
            return output.lines().filter(line -> line.startsWith(IdSoakChild.RESULT_PREFIX)).findFirst().map(Result::parse);
        }

        private static Result parse(String line) {
            Map<String, String> fields = Arrays.stream(line.substring(IdSoakChild.RESULT_PREFIX.length()).trim().split(" "))
                    .map(field -> field.split("=", 2))
                    .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1]));
            return new Result(fields.get("jvm"), Long.parseLong(fields.get("ids")), Long.parseLong(fields.get("errors")),
                    Long.parseLong(fields.get("nonIncreasing")), Long.parseLong(fields.get("elapsedMs")), fields.get("worker"));
        }

        double idsPerSecond() {
            return elapsedMillis == 0 ? Double.NaN : ids * 1000.0 / elapsedMillis;
        }
    }

    record ChildReport(String name, int exitCode, String output, Optional<Result> result) {
    }

    /**
     * @param releasedToDoneMillis from "go" until the last child exited (id files written included)
     * @param totalMillis          JVM start-up and reading the files included
     */
    record Outcome(IdSoakRun run, List<ChildReport> children, long ids, long duplicates, long releasedToDoneMillis,
                   long totalMillis) {

        long plannedIds() {
            return (long) run.jvms() * run.threads() * run.perThread();
        }

        boolean allExitedCleanly() {
            return children.stream().allMatch(child -> child.exitCode() == 0 && child.result().isPresent());
        }

        long errors() {
            return children.stream().flatMap(child -> child.result().stream()).mapToLong(Result::errors).sum();
        }

        long nonIncreasing() {
            return children.stream().flatMap(child -> child.result().stream()).mapToLong(Result::nonIncreasing).sum();
        }

        String summary() {
            StringBuilder text = new StringBuilder(String.format("%s soak: %d JVMs x %d threads x %,d ids: %,d ids, %d duplicates, "
                            + "%d errors, %d out of order; go to done %,d ms, total %,d ms",
                    run.strategy(), run.jvms(), run.threads(), run.perThread(), ids, duplicates, errors(), nonIncreasing(),
                    releasedToDoneMillis, totalMillis));
            for (ChildReport child : children) {
                text.append(String.format("%n  %s: exit %d, ", child.name(), child.exitCode()));
                child.result().ifPresentOrElse(
                        result -> text.append(String.format("%,d ids in %,d ms = %,.0f ids/s, worker id %s",
                                result.ids(), result.elapsedMillis(), result.idsPerSecond(), result.worker())),
                        () -> text.append("no result line"));
            }
            return text.toString();
        }

        String outputs() {
            return children.stream().map(child -> "----- " + child.name() + " (exit " + child.exitCode() + ") -----\n" + child.output())
                    .collect(Collectors.joining("\n"));
        }
    }
}
