package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A JDK 21 or later for the checks that need one (Jakarta EE 11 servers, virtual threads), while the
 * build itself may run on JDK 17. In this order: the build's own JDK if it is 21 or later; the one
 * {@value #VARIABLE} names (a JDK home directory; a wrong one fails the check rather than skip it);
 * one that CI images announce in {@code JAVA_HOME_21_X64}-style variables; one installed where JDKs
 * usually are ({@code /usr/lib/jvm/*}, {@code /usr/java/*}, {@code /opt/java/*}, SDKMAN's
 * {@code ~/.sdkman/candidates/java/*}, an IDE's {@code ~/.jdks/*}, macOS's
 * {@code /Library/Java/JavaVirtualMachines/*}). Of several found, the lowest release from 21 on,
 * the Jakarta EE 11 baseline. Tests skip by assumption, with {@link #MISSING} as the reason, only
 * when there is none.
 */
public final class Jdk21 {

    /** The environment variable naming a JDK 21+ home directory. */
    public static final String VARIABLE = "DISTLOCK_JDK21_HOME";

    private static final int REQUIRED = 21;

    /** {@code JAVA_HOME_21_X64}, {@code JAVA_HOME_25_ARM64}: what CI images (GitHub's among them) set per installed JDK. */
    private static final Pattern CI_VARIABLE = Pattern.compile("JAVA_HOME_(\\d+)(_[A-Z0-9]+)?");

    /** Why a check that needs a JDK 21+ did not run. */
    public static final String MISSING = "needs a JDK 21 or later: the build runs on Java " + Runtime.version().feature()
            + " and none was found in JAVA_HOME_<release>_X64 variables, " + String.join(", ", usualPlaces(System.getProperty("user.home")))
            + "; install one there (e.g. `apt-get install openjdk-21-jdk`, `sdk install java 21-tem`) or set " + VARIABLE
            + " to a JDK 21+ home directory to run it";

    private Jdk21() {
    }

    /**
     * The {@code java} executable of a JDK 21+, or empty when there is none (see the class comment
     * for where it looks).
     *
     * @throws IllegalStateException when {@value #VARIABLE} is set but names no JDK 21 or later: a
     *                               mistake to report, not a reason to skip
     */
    public static Optional<Path> java() {
        if (Runtime.version().feature() >= REQUIRED) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        return find(System.getenv(), homes(System.getenv(), usualPlaces(System.getProperty("user.home"))));
    }

    /**
     * The JDK 21+ that {@code env} names in {@value #VARIABLE} (checked, failing if it is none), else
     * the lowest release of 21 or later among {@code candidates} that is a JDK home directory.
     */
    static Optional<Path> find(Map<String, String> env, List<Path> candidates) {
        String named = env.get(VARIABLE);
        if (named != null && !named.isBlank()) {
            return Optional.of(inHome(Path.of(named.strip())));
        }
        Path best = null;
        int bestFeature = Integer.MAX_VALUE;
        for (Path home : candidates) {
            int feature = Files.isExecutable(home.resolve("bin").resolve("java")) ? featureOf(home) : 0;
            if (feature >= REQUIRED && feature < bestFeature) {
                best = home;
                bestFeature = feature;
            }
        }
        return Optional.ofNullable(best).map(home -> home.resolve("bin").resolve("java"));
    }

    /** The feature release of the JDK at {@code home}, from its release file; 0 if it has none or it cannot be read. */
    private static int featureOf(Path home) {
        try {
            return feature(release(home).getProperty("JAVA_VERSION", "").replace("\"", ""));
        } catch (UncheckedIOException unreadable) {
            return 0;
        }
    }

    /**
     * Directories that may be JDK homes: those {@code JAVA_HOME_<n>_<arch>} variables of {@code env}
     * name, then every directory inside each of {@code places} (and macOS's {@code Contents/Home}
     * in each), each once however many links lead to it.
     */
    static List<Path> homes(Map<String, String> env, List<String> places) {
        Set<Path> homes = new LinkedHashSet<>();
        env.entrySet().stream().filter(entry -> CI_VARIABLE.matcher(entry.getKey()).matches())
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> homes.add(real(Path.of(entry.getValue().strip()))));
        for (String place : places) {
            Path directory = Path.of(place);
            if (!Files.isDirectory(directory)) {
                continue;
            }
            List<Path> inside = new ArrayList<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, Files::isDirectory)) {
                entries.forEach(inside::add);
            } catch (IOException | UncheckedIOException unreadable) {
                continue; // a place we may not read holds nothing we can run
            }
            inside.sort(Comparator.comparing(Path::toString));
            for (Path home : inside) {
                Path macos = home.resolve("Contents").resolve("Home");
                homes.add(real(Files.isDirectory(macos) ? macos : home));
            }
        }
        return List.copyOf(homes);
    }

    /** Where JDKs are usually installed, for a user whose home directory is {@code userHome}. */
    static List<String> usualPlaces(String userHome) {
        String sdkman = System.getenv().getOrDefault("SDKMAN_DIR", userHome + "/.sdkman");
        return List.of("/usr/lib/jvm", "/usr/lib64/jvm", "/usr/java", "/opt/java", sdkman + "/candidates/java", userHome + "/.jdks",
                "/Library/Java/JavaVirtualMachines");
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException | SecurityException gone) {
            return path.toAbsolutePath().normalize();
        }
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
                    + java + "; set it to a JDK 21 or later, or unset it to let the build look for one");
        }
        String version = release(home).getProperty("JAVA_VERSION");
        if (version == null) {
            throw new IllegalStateException(VARIABLE + "=" + home + " is not a JDK home directory: its release file "
                    + "names no JAVA_VERSION; set it to a JDK 21 or later");
        }
        int feature = feature(version.replace("\"", ""));
        if (feature < REQUIRED) {
            throw new IllegalStateException(VARIABLE + "=" + home + " is Java " + version.replace("\"", "")
                    + ", not 21 or later; set it to a JDK 21+ home directory, or unset it to let the build look for one");
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
