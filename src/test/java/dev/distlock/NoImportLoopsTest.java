package dev.distlock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No import loop between the API ({@code dev.distlock}, {@code dev.distlock.id}) and the SPI
 * ({@code dev.distlock.spi.*}): no class of one package names a class of another that, through
 * the classes it names, comes back to it. Such a loop is what made the API's entry points and the
 * engine's service doors two halves of one thing; a store author reading the SPI would need the
 * API's insides to understand it.
 *
 * <p>Read from the sources, one node per file: a class names another by importing it, by its
 * qualified name in code, or, in its own package, by its simple name (comments and string
 * literals do not count). Loops inside one package are a class's own business and allowed; the
 * packages as a whole do point both ways, on purpose (the builder takes a {@code LockBackend}; the
 * SPI answers with the API's {@code LockMode} and exceptions), which is why the rule is about
 * classes. The twin plants a loop in a copy of the layout and sees it reported.
 */
class NoImportLoopsTest {

    /** The packages that must not form a loop between them, as directories under {@code src/main/java}. */
    private static final List<String> PACKAGES = List.of("dev/distlock", "dev/distlock/id", "dev/distlock/spi",
            "dev/distlock/spi/id", "dev/distlock/spi/jdbc");

    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("\\bdev\\.distlock(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*");
    private static final Pattern SIMPLE = Pattern.compile("\\b[A-Z]\\w*\\b");
    /** Comments, text blocks, strings and character literals, which name nothing. */
    private static final Pattern NOT_CODE = Pattern.compile(
            "/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'", Pattern.DOTALL);

    @Test
    void noLoopSpansTwoPackagesOfTheApiAndSpi() {
        Path main = DependenciesPointOneWayTest.projectRoot().resolve("src/main/java");
        Map<String, Set<String>> graph = graph(main);

        List<String> loops = loopsAcrossPackages(graph);

        assertTrue(graph.containsKey("dev.distlock.DistributedLocks") && graph.containsKey("dev.distlock.spi.LockBackend")
                && graph.get("dev.distlock.DistributedLocks").contains("dev.distlock.spi.LockBackend"),
                "the graph is read: the builder names the SPI's LockBackend");
        assertTrue(graph.size() > 50, "the API and SPI have more than 50 classes, read " + graph.size());
        assertEquals(List.of(), loops, "import loops that span packages of the API and SPI");
    }

    @Test
    void twinALoopPlantedInACopyOfTheLayoutIsReported(@TempDir Path copy) throws IOException {
        Path main = copy.resolve("src/main/java");
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/Entry.java"), """
                package dev.distlock;
                import dev.distlock.spi.Door;
                /** Unlike dev.distlock.spi.Unrelated, a comment names nothing. */
                public interface Entry { Door door(); String NAME = "dev.distlock.spi.Unrelated"; }
                """);
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/spi/Door.java"), """
                package dev.distlock.spi;
                public interface Door { Step next(); }
                """);
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/spi/Step.java"), """
                package dev.distlock.spi;
                public interface Step { dev.distlock.Entry back(); }
                """);
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/spi/Unrelated.java"), """
                package dev.distlock.spi;
                import dev.distlock.Entry;
                public interface Unrelated { Entry entry(); }
                """);
        // A loop inside one package is allowed.
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/id/First.java"), "package dev.distlock.id;\nclass First { Second second; }\n");
        DependenciesPointOneWayTest.write(main.resolve("dev/distlock/id/Second.java"), "package dev.distlock.id;\nclass Second { First first; }\n");

        List<String> loops = loopsAcrossPackages(graph(main));

        assertEquals(List.of("dev.distlock.Entry -> dev.distlock.spi.Door -> dev.distlock.spi.Step -> dev.distlock.Entry"), loops);
    }

    /** Each class of {@link #PACKAGES} with the classes of those packages that it names. */
    static Map<String, Set<String>> graph(Path main) {
        Map<String, String> code = new TreeMap<>();
        for (String dir : PACKAGES) {
            for (Path file : DependenciesPointOneWayTest.javaFiles(main.resolve(dir), false)) {
                String text = read(file);
                Matcher pkg = PACKAGE.matcher(text);
                if (!pkg.find() || file.getFileName().toString().equals("package-info.java")) {
                    continue;
                }
                String name = file.getFileName().toString().replace(".java", "");
                code.put(pkg.group(1) + "." + name, NOT_CODE.matcher(text).replaceAll(" "));
            }
        }
        Map<String, Set<String>> graph = new TreeMap<>();
        for (Map.Entry<String, String> source : code.entrySet()) {
            String self = source.getKey();
            String own = packageOf(self);
            Set<String> named = new TreeSet<>();
            Matcher imports = IMPORT.matcher(source.getValue());
            Set<String> wildcards = new LinkedHashSet<>();
            while (imports.find()) {
                String imported = imports.group(2);
                if (imports.group(3) != null && imports.group(1) == null) {
                    wildcards.add(imported);
                } else {
                    named.add(outermostClass(imported, code));
                }
            }
            Matcher qualified = QUALIFIED.matcher(source.getValue());
            while (qualified.find()) {
                named.add(outermostClass(qualified.group(), code));
            }
            Matcher simple = SIMPLE.matcher(source.getValue());
            while (simple.find()) {
                named.add(own + "." + simple.group());
                for (String wildcard : wildcards) {
                    named.add(wildcard + "." + simple.group());
                }
            }
            named.retainAll(code.keySet());
            named.remove(self);
            graph.put(self, named);
        }
        return graph;
    }

    /**
     * Every strongly connected set of classes that spans two packages, each shown as one of its
     * loops: the shortest way from its first class (by name) back to it.
     */
    static List<String> loopsAcrossPackages(Map<String, Set<String>> graph) {
        List<String> loops = new ArrayList<>();
        for (Set<String> component : components(graph)) {
            long packages = component.stream().map(NoImportLoopsTest::packageOf).distinct().count();
            if (packages > 1) {
                loops.add(String.join(" -> ", shortestLoop(component.iterator().next(), component, graph)));
            }
        }
        return loops;
    }

    /** Tarjan's strongly connected components, each sorted, in order of their first class. */
    private static List<Set<String>> components(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> found = new ArrayList<>();
        for (String start : graph.keySet()) {
            if (!index.containsKey(start)) {
                connect(start, graph, index, low, stack, onStack, found);
            }
        }
        found.sort((a, b) -> a.iterator().next().compareTo(b.iterator().next()));
        return found;
    }

    private static void connect(String node, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
                                Deque<String> stack, Set<String> onStack, List<Set<String>> found) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                connect(next, graph, index, low, stack, onStack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (onStack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(node));
            found.add(component);
        }
    }

    private static List<String> shortestLoop(String start, Set<String> component, Map<String, Set<String>> graph) {
        Map<String, String> cameFrom = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String node = queue.poll();
            for (String next : graph.get(node)) {
                if (next.equals(start)) {
                    List<String> loop = new ArrayList<>(List.of(start));
                    for (String back = node; !back.equals(start); back = cameFrom.get(back)) {
                        loop.add(1, back);
                    }
                    loop.add(start);
                    return loop;
                }
                if (component.contains(next) && !cameFrom.containsKey(next)) {
                    cameFrom.put(next, node);
                    queue.add(next);
                }
            }
        }
        throw new IllegalStateException(start + " is in a loop without a way back");
    }

    /** {@code dev.distlock.id.Ids.Serials} is the file {@code dev.distlock.id.Ids}; a static import's member is dropped too. */
    private static String outermostClass(String name, Map<String, String> classes) {
        String[] parts = name.split("\\.");
        StringBuilder prefix = new StringBuilder();
        for (String part : parts) {
            prefix.append(prefix.length() == 0 ? "" : ".").append(part);
            if (classes.containsKey(prefix.toString())) {
                return prefix.toString();
            }
        }
        return name;
    }

    private static String packageOf(String className) {
        return className.substring(0, className.lastIndexOf('.'));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
