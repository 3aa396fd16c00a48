package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.Directories;
import dev.distlock.testkit.ParentWatch;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Resp;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server's life: the shop deployed, used and undeployed {@value #ROUNDS} times in one Payara
 * Micro (through its API, in a JVM of its own: {@link RedeployProbe}). After every undeploy,
 * nothing of distlock is left in the server: no thread of distlock or of its Redis client, no
 * thread-local of the application's classes on the server's threads, the Snowflake worker id
 * given back in Redis; and the server does not grow with redeploys: undeployed applications'
 * class loaders are collected (at most the last one and one the server itself holds on to may
 * still be reachable), the loaded class count stays flat.
 *
 * <p>Before distlock released netty's per-thread state on the server's threads, every
 * undeployed shop stayed in memory: all class loaders alive, about 1,700 more classes loaded per
 * redeploy.
 */
class RedeployIT {

    static final int ROUNDS = 5;
    /** Fewer classes than one shop loads (~1,700): what a redeploy may add without leaking the application. */
    static final int CLASS_GROWTH_BOUND = 800;
    /**
     * Threads other than the server's own pools ({@link #SERVER_POOLS}) that redeploys may add: none
     * is expected (seen: 0); a leaked thread of the application or a library would show here, by name.
     */
    static final int THREAD_GROWTH_BOUND = 4;
    /**
     * Payara's own pools, which grow with redeploys up to their size whatever the application does
     * (seen over 4 redeploys: Executor-Service +1 to +4, Hazelcast's cached threads +1 to +2,
     * GF_Domain_XML +2, the default managed executor's threads +2; 13 in all once, over a bound of 12
     * on every thread, which failed a JDK 21 default run), and the JIT's compiler threads, which the JVM
     * adds and removes as it compiles. Named by {@code RedeployProbe}'s digits-as-#.
     */
    static final java.util.regex.Pattern SERVER_POOLS = java.util.regex.Pattern.compile(
            "Executor-Service-#|hz\\..*\\.cached\\.thread-#|GF_Domain_XML|concurrent/__default.*|C#_CompilerThread#");

    record Round(Map<String, String> deployed, Map<String, String> undeployed) {
    }

    @Test
    void redeployingLeavesNothingOfDistlockBehind() throws Exception {
        check("redeploy", Path.of(System.getProperty("shop.payara-micro")), Path.of(System.getProperty("java.home"), "bin", "java"));
    }

    /**
     * Runs the probe in {@code payara} started by {@code javaBin}, and judges its rounds; the work
     * directory is {@code target/e2e/<name>}. Shared with {@link Payara7IT}.
     */
    static void check(String name, Path payara, Path javaBin) throws Exception {
        Path workDir = Files.createDirectories(Path.of(System.getProperty("shop.work-dir"), name));
        try (RedisProcess redis = RedisProcess.start(Ports.free())) {
            List<Round> rounds = runProbe(workDir, redis, payara, javaBin);
            rounds.forEach(round -> System.out.println("[" + name + "] " + round.deployed() + "\n[" + name + "] " + round.undeployed()));
            assertEquals(ROUNDS, rounds.size(), "rounds reported");
            Map<String, String> first = rounds.get(0).undeployed();
            Map<String, String> last = rounds.get(ROUNDS - 1).undeployed();
            for (Round round : rounds) {
                Map<String, String> up = round.deployed();
                Map<String, String> down = round.undeployed();
                assertAll("round " + up.get("round"),
                        () -> assertEquals("true", up.get("ok"), "deployed"),
                        () -> assertEquals("200", up.get("read"), "a read-locked call"),
                        () -> assertEquals("201", up.get("order"), "an order placed (a lock, the checkout's id generator)"),
                        () -> assertTrue(up.get("distlockThreads").contains("distlock-lease-watch")
                                && up.get("distlockThreads").contains("distlock-worker-lease"), "distlock's threads ran: " + up),
                        () -> assertFalse(up.get("workerLeases").equals("[]"), "a worker id was leased: " + up),
                        () -> assertEquals("[]", down.get("appThreads"), "distlock or Redisson threads after undeploy"),
                        () -> assertEquals("[]", down.get("appThreadLocals"), "application objects in the server's thread-locals"),
                        () -> assertEquals("[]", down.get("workerLeases"), "worker ids given back"),
                        () -> assertTrue(Integer.parseInt(down.get("loadersAlive")) <= 2,
                                "undeployed applications still in memory: " + down.get("loadersAlive")));
            }
            int classGrowth = Integer.parseInt(last.get("loadedClasses")) - Integer.parseInt(rounds.get(1).undeployed().get("loadedClasses"));
            Map<String, Integer> grown = threadKindGrowth(first.get("threadKinds"), last.get("threadKinds"));
            int threadGrowth = grown.entrySet().stream().filter(kind -> !SERVER_POOLS.matcher(kind.getKey()).matches())
                    .mapToInt(Map.Entry::getValue).sum();
            System.out.printf("[%s] %d rounds: loaded classes after the second undeploy %s, after the last %s; threads after the first %s, after the last %s%n",
                    name, ROUNDS, rounds.get(1).undeployed().get("loadedClasses"), last.get("loadedClasses"), first.get("threads"), last.get("threads"));
            assertTrue(classGrowth < CLASS_GROWTH_BOUND, "classes added by " + (ROUNDS - 2) + " redeploys: " + classGrowth);
            System.out.printf("[%s] threads grown over %d redeploys, by name: %s%n", name, ROUNDS - 1, grown);
            assertTrue(threadGrowth <= THREAD_GROWTH_BOUND, "threads added by " + (ROUNDS - 1) + " redeploys, besides the server's "
                    + "own pools: " + threadGrowth + "; by name: " + grown);
        }
    }

    private static List<Round> runProbe(Path workDir, RedisProcess redis, Path payara, Path javaBin) throws IOException, InterruptedException {
        Path log = workDir.resolve("probe.log");
        List<String> command = new ArrayList<>();
        command.add(javaBin.toString());
        command.addAll(moduleOptions(payara));
        command.addAll(List.of("-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-javaagent:" + ParentWatch.writeAgentJar(workDir) + "=" + ProcessHandle.current().pid(),
                "-Ddistlock.redis.address=" + redis.url(),
                // Payara Micro, the probe and the test support's RESP client; the shop's classes come with the WAR only.
                "-cp", String.join(java.io.File.pathSeparator, payara.toString(), codeSource(RedeployProbe.class), codeSource(Resp.class)),
                RedeployProbe.class.getName(), System.getProperty("shop.war"), Integer.toString(Ports.free()),
                Integer.toString(ROUNDS), workDir.resolve("root").toString()));
        Directories.delete(workDir.resolve("root"));
        Process probe = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!probe.waitFor(15, TimeUnit.MINUTES)) {
            probe.destroyForcibly();
            throw new AssertionError("the redeploy probe did not finish within 15 minutes; log " + log);
        }
        List<String> lines = Files.readAllLines(log);
        List<Map<String, String>> deployed = new ArrayList<>();
        List<Map<String, String>> undeployed = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("DEPLOYED ")) {
                deployed.add(facts(line));
            } else if (line.startsWith("UNDEPLOYED ")) {
                undeployed.add(facts(line));
            }
        }
        if (probe.exitValue() != 0 || undeployed.size() != ROUNDS) {
            throw new AssertionError("the redeploy probe exited with " + probe.exitValue() + " after " + undeployed.size()
                    + " rounds; the end of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size())));
        }
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            rounds.add(new Round(deployed.get(i), undeployed.get(i)));
        }
        return rounds;
    }

    private static String codeSource(Class<?> type) {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().getPath()).toString();
    }

    /** Which kinds of thread (by name, digits as #) grew from {@code before} to {@code after}, and by how many. */
    static Map<String, Integer> threadKindGrowth(String before, String after) {
        Map<String, Integer> growth = new java.util.TreeMap<>(kinds(after));
        kinds(before).forEach((kind, count) -> growth.merge(kind, -count, Integer::sum));
        growth.values().removeIf(change -> change == 0);
        return growth;
    }

    private static Map<String, Integer> kinds(String list) {
        Map<String, Integer> kinds = new HashMap<>();
        if (list != null && list.length() > 2) {
            for (String entry : list.substring(1, list.length() - 1).split(", ")) {
                int colon = entry.lastIndexOf(':');
                kinds.put(entry.substring(0, colon), Integer.parseInt(entry.substring(colon + 1)));
            }
        }
        return kinds;
    }

    /** {@code key=value} pairs of a probe line; a value may be a bracketed list with spaces. */
    private static Map<String, String> facts(String line) {
        Map<String, String> facts = new HashMap<>();
        int at = line.indexOf(' ') + 1;
        while (at < line.length()) {
            int equals = line.indexOf('=', at);
            String key = line.substring(at, equals);
            int end;
            if (line.charAt(equals + 1) == '[') {
                end = line.indexOf(']', equals) + 1;
            } else {
                end = line.indexOf(' ', equals);
                end = end < 0 ? line.length() : end;
            }
            facts.put(key, line.substring(equals + 1, end));
            at = end + 1;
        }
        return facts;
    }

    /** The JDK module options the jar's manifest asks for when it is run with {@code java -jar}. */
    private static List<String> moduleOptions(Path payara) throws IOException {
        List<String> options = new ArrayList<>();
        try (JarFile jar = new JarFile(payara.toFile())) {
            Manifest manifest = jar.getManifest();
            for (String[] attribute : new String[][] {{"Add-Opens", "--add-opens="}, {"Add-Exports", "--add-exports="}}) {
                String value = manifest.getMainAttributes().getValue(attribute[0]);
                if (value != null) {
                    for (String target : value.trim().split("\\s+")) {
                        options.add(attribute[1] + target + "=ALL-UNNAMED");
                    }
                }
            }
        }
        return options;
    }
}
