package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Deleting the directories tests make: servers' homes, data directories, temporary files. */
public final class Directories {

    private Directories() {
    }

    /**
     * Deletes {@code directory} and everything in it; nothing happens if it does not exist.
     *
     * @throws IOException if something in it could not be deleted (what was deleted stays deleted)
     */
    public static void delete(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> paths = Files.walk(directory)) {
            deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : deepestFirst) {
            Files.deleteIfExists(path);
        }
    }

    /** Deletes what it can of {@code directory} ({@code null}: nothing): a temporary directory left behind is harmless. */
    public static void deleteQuietly(Path directory) {
        if (directory == null || !Files.exists(directory)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> paths = Files.walk(directory)) {
            deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
        } catch (IOException | UncheckedIOException unreadable) {
            return;
        }
        for (Path path : deepestFirst) {
            path.toFile().delete();
        }
    }
}
