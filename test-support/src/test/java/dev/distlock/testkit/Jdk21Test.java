package dev.distlock.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Jdk21Test {

    @Test
    void versionsAreReadAsTheirFeatureRelease() {
        assertEquals(21, Jdk21.feature("21"));
        assertEquals(25, Jdk21.feature("25.0.3"));
        assertEquals(17, Jdk21.feature("17.0.12+7"));
        assertEquals(8, Jdk21.feature("1.8.0_402"));
        assertEquals(0, Jdk21.feature("unknown"));
    }

    @Test
    void aDirectoryWithoutJavaIsRefusedNamingTheVariable(@TempDir Path home) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Jdk21.inHome(home));
        assertTrue(refused.getMessage().startsWith("DISTLOCK_JDK21_HOME=" + home + " is not a JDK home directory"),
                refused.getMessage());
    }

    @Test
    void aJdkOlderThan21IsRefused(@TempDir Path home) throws IOException {
        fakeJdk(home, "17.0.12");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Jdk21.inHome(home));
        assertTrue(refused.getMessage().contains("is Java 17.0.12, not 21 or later"), refused.getMessage());
    }

    @Test
    void aJdk21OrLaterIsTaken(@TempDir Path home) throws IOException {
        fakeJdk(home, "21.0.5");
        assertEquals(home.resolve("bin/java"), Jdk21.inHome(home));
        assertEquals("21.0.5", Jdk21.version(home.resolve("bin/java")));
    }

    private static void fakeJdk(Path home, String version) throws IOException {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    }
}
