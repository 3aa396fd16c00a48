package dev.distlock.cdi;

import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Curator is an optional dependency: an application on Redis does not carry it, and must deploy and
 * lock without it; one that asks for ZooKeeper without it fails the deployment saying what to add.
 * Each case runs in a JVM whose class path is this one's minus Curator and ZooKeeper.
 */
@Timeout(120)
class WithoutCuratorTest {

    @Test
    void redisLocksWorkWithoutCurator() throws Exception {
        String output = run("redis", TestRedis.url());
        assertTrue(output.contains("CURATOR absent"), output);
        assertTrue(output.contains("RAN 1"), output);
    }

    @Test
    void askingForZooKeeperWithoutCuratorFailsTheDeploymentSayingWhatToAdd() throws Exception {
        String output = run("zookeeper", "");
        assertTrue(output.contains("CURATOR absent"), output);
        assertTrue(output.contains("FAILED") && output.contains("distlock.backend=zookeeper needs Apache Curator")
                && output.contains("org.apache.curator:curator-recipes"), output);
    }

    private static String run(String backend, String redisUrl) throws IOException, InterruptedException {
        String classpath = Stream.of(ChildJvm.classpath().split(File.pathSeparator))
                .filter(entry -> !entry.contains("curator") && !entry.contains("zookeeper"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath, WithoutCuratorChild.class.getName(), backend, redisUrl);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] bytes = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
