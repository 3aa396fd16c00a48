package dev.distlock.virtualthreads;

import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.Jdk21;
import dev.distlock.testkit.RedisProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Locks taken from thousands of virtual threads, on a JDK 21 or later ({@link Jdk21}: the build's
 * own or one installed where JDKs usually are; skipped by assumption where there is none). A child JVM on that JDK
 * ({@link VirtualThreadStorm}) makes {@value #CALLS} locked calls against a real Redis, one virtual
 * thread each, half on {@value #HOT_KEYS} hot keys and half on {@value #COLD_KEYS} cold ones, through
 * {@code DistributedLocks} and through {@code @Locked} in Weld SE: every key's plain counter ends at
 * its number of calls and no two sections overlap; once distlock's classes are in use, no pinned
 * virtual thread, and no wait for a monitor (which pins on Java 21 to 23), has a frame of
 * distlock's code. (The JVM's very first calls wait for classes to be initialized, which pins on
 * every JDK: counted and printed, not judged.) The same calls without a lock lose updates: the
 * check can fail.
 *
 * <p>{@code -Ddistlock.vt.rounds=N} times the calls N times on virtual threads and on a pool of
 * {@code -Ddistlock.vt.pool} platform threads (default 1 round, 200 threads); the figures are in the
 * output and, measured, in {@code benchmarks/README.md}.
 */
class VirtualThreadsIT {

    static final int CALLS = 10_000;
    static final int HOT_KEYS = 4;
    static final int COLD_KEYS = 2_000;

    @Test
    void thousandsOfVirtualThreadsLockExactlyAndPinNoCarrierInDistlock() throws Exception {
        Optional<Path> java = Jdk21.java();
        assumeTrue(java.isPresent(), Jdk21.MISSING);
        int rounds = Integer.getInteger("distlock.vt.rounds", 1);
        int pool = Integer.getInteger("distlock.vt.pool", 200);
        Path jfr = Files.createTempFile("distlock-virtual-threads-", ".jfr");
        try (RedisProcess redis = RedisProcess.startOnFreePort()) {
            ChildJvm child = ChildJvm.start("virtual-threads", java.get(), List.of("-Xmx1g", "-Xss512k"), VirtualThreadStorm.class,
                    List.of(redis.url(), Integer.toString(CALLS), Integer.toString(HOT_KEYS), Integer.toString(COLD_KEYS),
                            Integer.toString(rounds), Integer.toString(pool), jfr.toString(), Long.toString(ProcessHandle.current().pid())));
            String output;
            try {
                boolean ended = child.process.waitFor(10, TimeUnit.MINUTES);
                output = child.output();
                System.out.println("[virtual threads] Java " + Jdk21.version(java.get()) + " (" + java.get() + ")\n" + output);
                assertTrue(ended, "the child did not end within 10 minutes");
                assertEquals(0, child.process.exitValue(), "the child's exit code");
            } finally {
                child.kill();
                child.deleteOutput();
                Files.deleteIfExists(jfr);
            }
            Map<String, Map<String, String>> results = results(output);
            Map<String, String> pins = facts(output, "PINNED");
            assertNotNull(pins, "no PINNED line");
            List<org.junit.jupiter.api.function.Executable> checks = new ArrayList<>();
            for (String phase : List.of("api-cold", "cdi", "api")) {
                Map<String, String> result = results.get(phase);
                assertNotNull(result, "no result for " + phase);
                checks.add(() -> assertEquals("0", result.get("failures"), phase + ": calls that failed"));
                checks.add(() -> assertEquals("0", result.get("violations"), phase + ": sections that overlapped"));
                checks.add(() -> assertEquals("0", result.get("lost"), phase + ": lost updates"));
                checks.add(() -> assertEquals("0", result.get("inexactKeys"), phase + ": keys whose counter is not their number of calls"));
            }
            for (int round = 1; round <= rounds; round++) {
                Map<String, String> result = results.get("throughput-" + round);
                assertNotNull(result, "no throughput round " + round);
                int r = round;
                checks.add(() -> assertEquals("0", result.get("inexactKeys"), "throughput round " + r + ": inexact keys"));
            }
            checks.add(() -> assertEquals("0", pins.get("distlock"), "pinned virtual threads with distlock on the stack"));
            checks.add(() -> assertEquals("0", pins.get("monitorEnterDistlock"),
                    "virtual threads that waited for a monitor with distlock on the stack (pins on Java 21-23)"));
            Map<String, String> unlocked = results.get("unlocked");
            checks.add(() -> assertTrue(Long.parseLong(unlocked.get("lost")) > 0 && Long.parseLong(unlocked.get("violations")) > 0,
                    "the twin without a lock must lose updates and overlap: " + unlocked));
            assertAll(checks);
        }
    }

    /** The RESULT lines by phase; the throughput rounds' virtual-thread line wins over the platform one. */
    private static Map<String, Map<String, String>> results(String output) {
        Map<String, Map<String, String>> results = new HashMap<>();
        for (String line : output.split("\n")) {
            if (line.startsWith("RESULT ")) {
                Map<String, String> facts = parse(line);
                results.merge(facts.get("phase"), facts, (platform, virtual) -> {
                    Map<String, String> both = new HashMap<>(virtual);
                    if (!"0".equals(platform.get("inexactKeys"))) {
                        both.put("inexactKeys", platform.get("inexactKeys"));
                    }
                    return both;
                });
            }
        }
        return results;
    }

    private static Map<String, String> facts(String output, String tag) {
        for (String line : output.split("\n")) {
            if (line.startsWith(tag + " ")) {
                return parse(line);
            }
        }
        return null;
    }

    private static Map<String, String> parse(String line) {
        Map<String, String> facts = new HashMap<>();
        for (String pair : line.substring(line.indexOf(' ') + 1).trim().split(" ")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                facts.put(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        return facts;
    }
}
