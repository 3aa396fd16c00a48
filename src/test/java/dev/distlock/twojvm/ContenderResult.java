package dev.distlock.twojvm;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one contender JVM reports on its last line of standard output.
 *
 * @param name          the JVM's name in the run, e.g. {@code jvm-1}
 * @param calls         critical sections completed
 * @param violations    times a thread found another holder inside, or its marker gone on leaving
 * @param errors        calls that failed with an exception (lock timeouts, Redis failures)
 * @param elapsedMillis from the start signal until the last thread finished
 */
public record ContenderResult(String name, long calls, long violations, long errors, long elapsedMillis) {

    static final String PREFIX = "CONTENDER-RESULT ";

    String line() {
        return PREFIX + "name=" + name + " calls=" + calls + " violations=" + violations + " errors=" + errors
                + " elapsedMs=" + elapsedMillis;
    }

    /** The result line in a contender's output, if it printed one. */
    static Optional<ContenderResult> find(String output) {
        return output.lines()
                .filter(line -> line.startsWith(PREFIX))
                .reduce((first, second) -> second)
                .map(ContenderResult::parse);
    }

    private static ContenderResult parse(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String field : line.substring(PREFIX.length()).trim().split(" ")) {
            int equals = field.indexOf('=');
            fields.put(field.substring(0, equals), field.substring(equals + 1));
        }
        return new ContenderResult(fields.get("name"), Long.parseLong(fields.get("calls")),
                Long.parseLong(fields.get("violations")), Long.parseLong(fields.get("errors")),
                Long.parseLong(fields.get("elapsedMs")));
    }
}
