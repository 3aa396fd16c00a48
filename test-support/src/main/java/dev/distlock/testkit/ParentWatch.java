package dev.distlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A Java agent for server processes a test starts (Payara Micro, say): halts its JVM once the
 * starting JVM is gone. The starter kills its servers in {@code finally} and in a shutdown hook, but
 * neither runs when its own JVM is killed outright (a test run's timeout, {@code kill -9}); without this, the servers
 * would keep their ports and memory forever.
 */
public final class ParentWatch {

    private static final long POLL_MILLIS = 1_000;
    private static final int EXIT_CODE = 143;

    private ParentWatch() {
    }

    /** @param parentPid the process whose end ends this JVM */
    public static void premain(String parentPid) {
        long pid = Long.parseLong(parentPid.strip());
        Thread watch = new Thread(() -> {
            while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.err.println("ParentWatch: parent process " + pid + " is gone; halting");
            Runtime.getRuntime().halt(EXIT_CODE);
        }, "parent-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /** Writes the agent jar (this class and a manifest) to {@code directory} and returns its path. */
    public static Path writeAgentJar(Path directory) {
        Path jar = directory.resolve("parent-watch-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), ParentWatch.class.getName());
        String entry = ParentWatch.class.getName().replace('.', '/') + ".class";
        try (InputStream classFile = ParentWatch.class.getClassLoader().getResourceAsStream(entry);
             JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            if (classFile == null) {
                throw new IllegalStateException("cannot read " + entry + " from the class path");
            }
            out.putNextEntry(new JarEntry(entry));
            classFile.transferTo(out);
            out.closeEntry();
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + jar, e);
        }
        return jar;
    }
}
