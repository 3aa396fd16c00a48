package dev.distlock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dependencies point one way: the engine and the CDI layer ({@code dev.distlock.internal.*}) use
 * the API, the SPI and the backends, never the other way round. Read from the sources: no class of
 * the API ({@code dev.distlock}, {@code dev.distlock.id}), of the SPI ({@code dev.distlock.spi.*}),
 * of the backends inside distlock ({@code dev.distlock.redis}, {@code dev.distlock.memory}) or of a
 * backend module ({@code backends/}) names a class of {@code dev.distlock.internal}. The twin plants
 * such names in a copy of that layout and sees each reported.
 */
class DependenciesPointOneWayTest {

    /** A name of the engine's, in code: an import or a qualified name, not a comment. */
    private static final Pattern INTERNAL = Pattern.compile("\\bdev\\.distlock\\.internal\\.[\\w.]+");
    /** The packages that must not use the engine, as directories under a source root. */
    private static final List<String> ONE_WAY = List.of("dev/distlock", "dev/distlock/id", "dev/distlock/spi",
            "dev/distlock/spi/id", "dev/distlock/spi/jdbc", "dev/distlock/redis", "dev/distlock/memory");

    @Test
    void noApiSpiOrBackendClassNamesTheEngine() {
        Path root = projectRoot();
        List<String> found = violations(root);
        assertTrue(Files.isDirectory(root.resolve("backends")), "the backends are at " + root.resolve("backends"));
        assertEquals(List.of(), found, "classes that name dev.distlock.internal where dependencies must point the other way");
    }

    @Test
    void twinReferencesPlantedInACopyOfTheLayoutAreReported(@TempDir Path copy) throws IOException {
        write(copy.resolve("src/main/java/dev/distlock/Api.java"),
                "package dev.distlock;\nimport dev.distlock.internal.core.EngineBuilder;\nclass Api {}\n");
        write(copy.resolve("src/main/java/dev/distlock/spi/id/Spi.java"),
                "package dev.distlock.spi.id;\nclass Spi { Object o = new dev.distlock.internal.id.JdbcSpareRanges(); }\n");
        write(copy.resolve("src/main/java/dev/distlock/redis/Backend.java"),
                "package dev.distlock.redis;\n/** Unlike {@code dev.distlock.internal.cdi.LockEngine}, a comment is no dependency. */\n"
                        + "class Backend { dev.distlock.internal.cdi.LockEngine engine; }\n");
        write(copy.resolve("backends/zk/src/main/java/dev/distlock/zk/ZkBackend.java"),
                "package dev.distlock.zk;\nimport dev.distlock.internal.id.WorkerLeases;\nclass ZkBackend {}\n");
        write(copy.resolve("src/main/java/dev/distlock/internal/cdi/Allowed.java"),
                "package dev.distlock.internal.cdi;\nimport dev.distlock.internal.core.LockExecutor;\nclass Allowed {}\n");

        List<String> found = violations(copy);

        assertEquals(4, found.size(), String.join("\n", found));
        assertTrue(found.get(0).contains("ZkBackend.java:2 dev.distlock.internal.id.WorkerLeases"), found.get(0));
        assertTrue(found.stream().anyMatch(line -> line.contains("Api.java:2 dev.distlock.internal.core.EngineBuilder")), found.toString());
        assertTrue(found.stream().anyMatch(line -> line.contains("Spi.java:2 dev.distlock.internal.id.JdbcSpareRanges")), found.toString());
        assertTrue(found.stream().anyMatch(line -> line.contains("Backend.java:3 dev.distlock.internal.cdi.LockEngine")), found.toString());
    }

    /** Each use of the engine where it must not be: {@code file:line name}, backends first. */
    static List<String> violations(Path root) {
        List<Path> sources = new ArrayList<>();
        Path backends = root.resolve("backends");
        if (Files.isDirectory(backends)) {
            try (Stream<Path> modules = Files.list(backends)) {
                modules.sorted().map(module -> module.resolve("src/main/java")).filter(Files::isDirectory)
                        .forEach(main -> sources.addAll(javaFiles(main, true)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Path main = root.resolve("src/main/java");
        for (String pkg : ONE_WAY) {
            sources.addAll(javaFiles(main.resolve(pkg), false));
        }
        List<String> found = new ArrayList<>();
        for (Path source : sources) {
            List<String> lines = read(source);
            for (int i = 0; i < lines.size(); i++) {
                String code = lines.get(i).strip();
                if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) {
                    continue;
                }
                Matcher name = INTERNAL.matcher(code);
                while (name.find()) {
                    found.add(root.relativize(source) + ":" + (i + 1) + " " + name.group());
                }
            }
        }
        return found;
    }

    /** The Java files in {@code dir} (and below it when {@code deep}), sorted; none when it is absent. Shared with {@link NoImportLoopsTest}. */
    static List<Path> javaFiles(Path dir, boolean deep) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = deep ? Files.walk(dir) : Files.list(dir)) {
            return files.filter(file -> file.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    /** The directory with {@code src/main/java} and {@code backends/}: the library module's parent. */
    static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("src/main/java/dev/distlock")) && Files.isDirectory(dir.resolve("backends"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no distlock source tree above " + Path.of("").toAbsolutePath());
    }
}
