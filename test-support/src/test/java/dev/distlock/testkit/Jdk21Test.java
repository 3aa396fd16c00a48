package dev.distlock.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    @Test
    void theLowestReleaseFrom21OnAmongTheUsualPlacesIsFound(@TempDir Path root) throws IOException {
        Path jvm = root.resolve("jvm");
        fakeJdk(jvm.resolve("java-17-openjdk"), "17.0.15");
        fakeJdk(jvm.resolve("temurin-25-jdk"), "25.0.1");
        fakeJdk(jvm.resolve("zulu-21"), "21.0.4");
        Files.createDirectories(jvm.resolve("default-java-without-bin"));
        List<Path> homes = Jdk21.homes(Map.of(), List.of(jvm.toString(), root.resolve("absent").toString()));
        assertEquals(4, homes.size(), homes.toString());
        assertEquals(Optional.of(jvm.resolve("zulu-21/bin/java").toRealPath()), Jdk21.find(Map.of(), homes));
    }

    @Test
    void ciVariablesAndMacOsLayoutsCount(@TempDir Path root) throws IOException {
        fakeJdk(root.resolve("hosted/jdk-22"), "22.0.2");
        fakeJdk(root.resolve("mac/temurin-24.jdk/Contents/Home"), "24");
        Map<String, String> env = Map.of("JAVA_HOME_22_X64", root.resolve("hosted/jdk-22").toString(), "JAVA_HOME", "/elsewhere");
        List<Path> homes = Jdk21.homes(env, List.of(root.resolve("mac").toString()));
        assertEquals(List.of(root.resolve("hosted/jdk-22").toRealPath(), root.resolve("mac/temurin-24.jdk/Contents/Home").toRealPath()),
                homes);
        assertEquals(Optional.of(root.resolve("hosted/jdk-22/bin/java").toRealPath()), Jdk21.find(Map.of(), homes));
    }

    @Test
    void theVariableWinsOverWhatIsInstalled(@TempDir Path root) throws IOException {
        fakeJdk(root.resolve("jvm/jdk-21"), "21.0.4");
        fakeJdk(root.resolve("mine"), "25.0.1");
        List<Path> homes = Jdk21.homes(Map.of(), List.of(root.resolve("jvm").toString()));
        assertEquals(Optional.of(root.resolve("mine/bin/java")), Jdk21.find(Map.of(Jdk21.VARIABLE, root.resolve("mine").toString()), homes));
        assertThrows(IllegalStateException.class, () -> Jdk21.find(Map.of(Jdk21.VARIABLE, root.resolve("jvm").toString()), homes),
                "a variable naming no JDK fails, even where one is installed");
    }

    @Test
    void nothingFoundIsEmptyAndTheReasonSaysWhereItLooked(@TempDir Path root) throws IOException {
        fakeJdk(root.resolve("jvm/jdk-17"), "17.0.15");
        assertEquals(Optional.empty(), Jdk21.find(Map.of(), Jdk21.homes(Map.of(), List.of(root.resolve("jvm").toString()))));
        assertTrue(Jdk21.MISSING.contains("/usr/lib/jvm") && Jdk21.MISSING.contains(".sdkman/candidates/java")
                && Jdk21.MISSING.contains(Jdk21.VARIABLE), Jdk21.MISSING);
    }

    private static void fakeJdk(Path home, String version) throws IOException {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    }
}
