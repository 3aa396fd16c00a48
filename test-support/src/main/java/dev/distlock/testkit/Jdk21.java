package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * A JDK 21 or later for the checks that need one (Jakarta EE 11 servers, virtual threads), while the
 * build itself may run on JDK 17: the build's own JDK if it is 21 or later, else the one
 * {@value #VARIABLE} names (a JDK home directory). Tests skip by assumption, with {@link #MISSING}
 * as the reason, when there is none.
 */
public final class Jdk21 {

    /** The environment variable naming a JDK 21+ home directory. */
    public static final String VARIABLE = "DISTLOCK_JDK21_HOME";
    /** Why a check that needs a JDK 21+ did not run. */
    public static final String MISSING = "needs a JDK 21 or later: the build runs on Java " + Runtime.version().feature()
            + "; set " + VARIABLE + " to a JDK 21+ home directory (e.g. /usr/lib/jvm/temurin-25-jdk-amd64) to run it";

    private static final int REQUIRED = 21;

    private Jdk21() {
    }

    /**
     * The {@code java} executable of a JDK 21+, or empty when neither the build's JDK is one nor
     * {@value #VARIABLE} is set.
     *
     * @throws IllegalStateException when {@value #VARIABLE} is set but names no JDK 21 or later: a
     *                               mistake to report, not a reason to skip
     */
    public static Optional<Path> java() {
        if (Runtime.version().feature() >= REQUIRED) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        String home = System.getenv(VARIABLE);
        if (home == null || home.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(inHome(Path.of(home.strip())));
    }

    /** The Java version of the JDK {@link #java()} found, e.g. {@code 25.0.3}; for reports. */
    public static String version(Path java) {
        if (java.equals(Path.of(System.getProperty("java.home"), "bin", "java"))) {
            return Runtime.version().toString();
        }
        return release(java.getParent().getParent()).getProperty("JAVA_VERSION", "?").replace("\"", "");
    }

    /** The {@code java} of the JDK 21+ at {@code home}; fails, naming the variable, if it is none. */
    static Path inHome(Path home) {
        Path java = home.resolve("bin").resolve("java");
        if (!Files.isExecutable(java)) {
            throw new IllegalStateException(VARIABLE + "=" + home + " is not a JDK home directory: there is no executable "
                    + java + "; set it to a JDK 21 or later, or unset it to skip the checks that need one");
        }
        String version = release(home).getProperty("JAVA_VERSION");
        if (version == null) {
            throw new IllegalStateException(VARIABLE + "=" + home + " is not a JDK home directory: its release file "
                    + "names no JAVA_VERSION; set it to a JDK 21 or later");
        }
        int feature = feature(version.replace("\"", ""));
        if (feature < REQUIRED) {
            throw new IllegalStateException(VARIABLE + "=" + home + " is Java " + version.replace("\"", "")
                    + ", not 21 or later; set it to a JDK 21+ home directory, or unset it to skip the checks that need one");
        }
        return java;
    }

    private static Properties release(Path home) {
        Properties release = new Properties();
        Path file = home.resolve("release");
        if (Files.isRegularFile(file)) {
            try (var reader = Files.newBufferedReader(file)) {
                release.load(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return release;
    }

    /** {@code 21.0.2} → 21, {@code 1.8.0_402} → 8. */
    static int feature(String version) {
        String[] parts = version.split("[._+-]");
        try {
            int first = Integer.parseInt(parts[0]);
            return first == 1 && parts.length > 1 ? Integer.parseInt(parts[1]) : first;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
