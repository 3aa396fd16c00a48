package dev.distlock.twojvm;

import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * What a {@link ContenderRun} measured.
 *
 * @param run      what was run
 * @param children each child's exit code, output and result line
 * @param counter  the counter in Redis after every child finished
 */
public record RunOutcome(ContenderRun run, List<ChildReport> children, long counter) {

    /**
     * @param result the child's result line, or {@code null} if it printed none
     */
    public record ChildReport(String name, int exitCode, String output, ContenderResult result) {
    }

    public RunOutcome {
        children = List.copyOf(children);
    }

    /** Every child exited 0 and reported. */
    public boolean allExitedCleanly() {
        return children.stream().allMatch(child -> child.exitCode == 0 && child.result != null);
    }

    /** Calls the run was asked to make. */
    public long plannedCalls() {
        return (long) run.jvms() * run.threads() * run.iterations();
    }

    /** Calls the children reported as completed. */
    public long calls() {
        return sum(ContenderResult::calls);
    }

    public long violations() {
        return sum(ContenderResult::violations);
    }

    public long errors() {
        return sum(ContenderResult::errors);
    }

    /** Increments that another holder overwrote: each is a call that ran at the same time as another. */
    public long lostUpdates() {
        return calls() - counter;
    }

    /** The slowest child's time from the start signal to its last call. */
    public long elapsedMillis() {
        return children.stream().map(ChildReport::result).filter(Objects::nonNull)
                .mapToLong(ContenderResult::elapsedMillis).max().orElse(0);
    }

    /** One line for people: {@code 2 JVMs x 8 threads x 50 calls = 800 calls, counter 800, ...}. */
    public String summary() {
        return run.jvms() + " JVMs x " + run.threads() + " threads x " + run.iterations() + " calls = "
                + plannedCalls() + " calls" + (calls() == plannedCalls() ? "" : " (" + calls() + " completed)")
                + ", counter " + counter + ", " + lostUpdates() + " lost updates, " + violations() + " overlaps, "
                + (errors() == 0 ? "" : errors() + " failed calls, ") + elapsedMillis() + " ms";
    }

    /** Every child's exit code and output, for a failure message. */
    public String outputs() {
        return children.stream()
                .map(child -> "----- " + child.name + " (exit " + child.exitCode + ") -----\n" + child.output)
                .collect(Collectors.joining("\n"));
    }

    private long sum(ToLongFunction<ContenderResult> figure) {
        return children.stream().map(ChildReport::result).filter(Objects::nonNull).mapToLong(figure).sum();
    }
}
