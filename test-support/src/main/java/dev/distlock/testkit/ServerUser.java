package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Who a server that refuses to run as root (PostgreSQL) runs as: the JVM's own user, or, when the
 * JVM runs as root (containers, CI machines), the system user {@code nobody} through util-linux's
 * {@code setpriv}, which replaces itself with the server, so the process the test holds is the
 * server's.
 */
final class ServerUser {

    private static final String UNPRIVILEGED = "nobody";
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    private final String uid;
    private final String gid;

    private ServerUser(String uid, String gid) {
        this.uid = uid;
        this.gid = gid;
    }

    /** The JVM's user, or {@code nobody} when that is root. */
    static ServerUser forServerThatRefusesRoot() {
        if (!isRoot()) {
            return new ServerUser(null, null);
        }
        if (!Files.isExecutable(SETPRIV)) {
            throw new ServerUnavailable("the tests run as root and PostgreSQL refuses root, but there is no "
                    + SETPRIV + " (util-linux) to run it as " + UNPRIVILEGED);
        }
        String[] passwd = passwdEntry(UNPRIVILEGED);
        return new ServerUser(passwd[2], passwd[3]);
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** {@code command} as this user runs it. */
    List<String> command(List<String> command) {
        if (uid == null) {
            return command;
        }
        List<String> asUser = new ArrayList<>(List.of(SETPRIV.toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups"));
        asUser.addAll(command);
        return asUser;
    }

    /** Gives {@code directory} to this user, so that the server may write there and nobody else. */
    void own(Path directory) {
        if (uid == null) {
            return;
        }
        try {
            Files.setAttribute(directory, "unix:uid", Integer.parseInt(uid));
            Files.setAttribute(directory, "unix:gid", Integer.parseInt(gid));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + directory + " to " + UNPRIVILEGED, e);
        }
    }

    private static String[] passwdEntry(String user) {
        try (Stream<String> lines = Files.lines(Path.of("/etc/passwd"))) {
            return lines.map(line -> line.split(":"))
                    .filter(fields -> fields.length > 3 && fields[0].equals(user))
                    .findFirst()
                    .orElseThrow(() -> new ServerUnavailable("the tests run as root and PostgreSQL refuses root, but /etc/passwd has no user "
                            + user + " to run it as"));
        } catch (IOException e) {
            throw new ServerUnavailable("the tests run as root and PostgreSQL refuses root, but /etc/passwd cannot be read: " + e);
        }
    }
}
