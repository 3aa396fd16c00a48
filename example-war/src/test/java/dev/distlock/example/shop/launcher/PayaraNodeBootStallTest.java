package dev.distlock.example.shop.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server whose boot stands still (its log silent) is dumped, stopped and started once more; a
 * second stall fails the start, naming both. The "server" is a script that writes one line and
 * then waits for ever, standing in for a Payara Micro stuck before it deploys anything.
 */
class PayaraNodeBootStallTest {

    @Test
    void aStalledBootIsStartedOnceMoreThenRefused(@TempDir Path dir) throws Exception {
        Path fakeJava = dir.resolve("java");
        Path starts = dir.resolve("starts");
        Files.writeString(fakeJava, "#!/bin/sh\necho started >> " + starts + "\necho booting\nexec sleep 600\n");
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwx------"));
        PayaraNode node = PayaraNode.start("stuck", 1, fakeJava, dir.resolve("payara.jar"), dir.resolve("shop.war"), dir,
                dir.resolve("agent.jar"), List.of(), Map.of());
        try {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> node.awaitReady(Duration.ofSeconds(60), Duration.ofMillis(1_500)));
            assertTrue(refused.getMessage().contains("stuck stalled twice while booting"), refused.getMessage());
            assertEquals(2, Files.readAllLines(starts).size(), "started once more after the first stall");
            assertTrue(Files.exists(dir.resolve("stuck-stalled-1.log")), "the first boot's log is kept");
            assertTrue(Files.readString(dir.resolve("stuck-stalled-1.threads")).contains("no thread dump"),
                    "the dump, or why there is none (a script has no threads to print)");
            assertTrue(Files.exists(dir.resolve("stuck-stalled-2.threads")));
        } finally {
            node.close();
        }
    }
}
