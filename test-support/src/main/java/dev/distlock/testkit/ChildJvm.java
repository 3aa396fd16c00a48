package dev.distlock.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A child JVM running a main class of the test classpath, its output going to a file so that no
 * pipe can fill up and stall it. The same approach as {@code twojvm.ContenderRun}: the caller kills
 * it in {@code finally}, and the child halts itself when its parent dies or its deadline passes.
 * Shared by the two-JVM lock test, the demo and the id soak.
 */
public final class ChildJvm {

    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

    public final String name;
    public final Process process;
    private final Path outputFile;

    private ChildJvm(String name, Process process, Path outputFile) {
        this.name = name;
        this.process = process;
        this.outputFile = outputFile;
    }

    public static ChildJvm start(String name, Class<?> mainClass, List<String> arguments) {
        return start(name, Path.of(System.getProperty("java.home"), "bin", "java"), JVM_OPTIONS, mainClass, arguments);
    }

    /**
     * As {@link #start(String, Class, List)}, run by another {@code java} (e.g. a JDK 21+ one, see
     * {@link Jdk21}) with other JVM options.
     */
    public static ChildJvm start(String name, Path java, List<String> jvmOptions, Class<?> mainClass, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath());
        command.add(mainClass.getName());
        command.addAll(arguments);
        try {
            Path output = Files.createTempFile("distlock-child-" + name + "-", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            return new ChildJvm(name, process, output);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start child JVM " + name, e);
        }
    }

    /** The classpath this class was loaded from (a class loader inside Maven under exec:java, else java.class.path). */
    public static String classpath() {
        if (ChildJvm.class.getClassLoader() instanceof URLClassLoader loader) {
            return Stream.of(loader.getURLs()).map(ChildJvm::toPath).collect(Collectors.joining(File.pathSeparator));
        }
        return System.getProperty("java.class.path");
    }

    private static String toPath(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("not a file on the classpath: " + url, e);
        }
    }

    public String output() {
        try {
            return Files.readString(outputFile);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }

    /**
     * The first line of the output that starts with {@code start}, waited for while the child runs.
     *
     * @throws AssertionError with the output when the child ends first or {@code limitMillis} passes
     */
    public String awaitLine(String start, long limitMillis) throws InterruptedException {
        Pattern wanted = Pattern.compile("(?m)^" + Pattern.quote(start) + ".*$");
        long startedAt = System.nanoTime();
        while (true) {
            String output = output();
            Matcher line = wanted.matcher(output);
            if (line.find()) {
                return line.group();
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " ended without a line '" + start + "':\n" + output);
            }
            if (System.nanoTime() - startedAt > limitMillis * 1_000_000L) {
                throw new AssertionError("no line '" + start + "' from " + name + " within " + limitMillis + " ms:\n" + output);
            }
            Thread.sleep(20);
        }
    }

    /**
     * The one line of {@code output} that starts with {@code start}.
     *
     * @throws AssertionError when there is none, or more than one
     */
    public static String onlyLine(String output, String start) {
        Matcher line = Pattern.compile("(?m)^" + Pattern.quote(start) + ".*$").matcher(output);
        if (!line.find()) {
            throw new AssertionError("no '" + start + "' line in the child's output:\n" + output);
        }
        String found = line.group();
        if (line.find()) {
            throw new AssertionError("two '" + start + "' lines:\n" + output);
        }
        return found;
    }

    /** Kills the JVM and anything it started and waits until they are gone. */
    public void kill() {
        Processes.kill(process);
    }

    public void deleteOutput() {
        try {
            Files.deleteIfExists(outputFile);
        } catch (IOException ignored) {
            // a temp file left behind is harmless
        }
    }

    /** Halts this JVM when the parent process is gone, so no child outlives a killed test run. */
    public static void haltWhenParentDies(long parentPid, int exitCode) {
        ProcessHandle.of(parentPid).ifPresentOrElse(
                parent -> parent.onExit().thenRun(() -> {
                    System.err.println("parent " + parentPid + " is gone; halting");
                    Runtime.getRuntime().halt(exitCode);
                }),
                () -> Runtime.getRuntime().halt(exitCode));
    }

    /** Halts this JVM after {@code millis}, in case its parent could not kill it. */
    public static void haltAfter(long millis, int exitCode) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("still running after " + millis + " ms; halting");
            Runtime.getRuntime().halt(exitCode);
        }, "child-deadline");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
