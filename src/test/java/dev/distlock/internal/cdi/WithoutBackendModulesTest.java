package dev.distlock.internal.cdi;

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
 * The ZooKeeper and database backends are artifacts of their own: an application on Redis carries
 * neither (nor Curator), and must deploy and lock without them; one that asks for ZooKeeper without
 * its artifact fails the deployment saying which artifact to add. Each case runs in a JVM whose class
 * path is this one's minus anything of Curator and ZooKeeper.
 */
@Timeout(120)
class WithoutBackendModulesTest {

    @Test
    void redisLocksWorkWithoutTheBackendArtifacts() throws Exception {
        String output = run("redis", TestRedis.url());
        assertTrue(output.contains("CURATOR absent"), output);
        assertTrue(output.contains("RAN 1"), output);
    }

    @Test
    void askingForZooKeeperWithoutItsArtifactFailsTheDeploymentSayingWhatToAdd() throws Exception {
        String output = run("zookeeper", "");
        assertTrue(output.contains("CURATOR absent"), output);
        assertTrue(output.contains("PROVIDERS [in-memory, redis]"), output);
        assertTrue(output.contains("FAILED") && output.contains("distlock.backend=zookeeper needs the dev.distlock:distlock-zookeeper"
                + " artifact"), output);
    }

    private static String run(String backend, String redisUrl) throws IOException, InterruptedException {
        String classpath = Stream.of(ChildJvm.classpath().split(File.pathSeparator))
                .filter(entry -> !entry.contains("curator") && !entry.contains("zookeeper"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath, WithoutBackendModulesChild.class.getName(), backend, redisUrl);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] bytes = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
