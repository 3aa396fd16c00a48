package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.Resp;
import java.io.File;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Runs inside a JVM of its own, with {@code payara-micro.jar} on the class path: boots Payara Micro
 * through its API, then deploys the shop, uses it, and undeploys it, {@code rounds} times in the
 * same server. After each step it prints one line of facts for {@link RedeployIT} to judge:
 *
 * <pre>
 * DEPLOYED round=1 ok=true read=200 order=201 distlockThreads=[...]
 * UNDEPLOYED round=1 threads=93 appThreads=[...] appThreadLocals=[...] loadersAlive=1 loadedClasses=23518
 * </pre>
 *
 * <p>{@code appThreads}: live threads that belong to distlock or its Redis client (by name).
 * {@code appThreadLocals}: entries in any thread's thread-locals whose value was loaded by an
 * application class loader — what pins an undeployed application to a pooled server thread.
 * {@code loadersAlive}: how many of the undeployed applications' class loaders are still
 * reachable after a few garbage collections.
 *
 * <p>Payara Micro's API is called by reflection, so that the tests compile without it.
 * Arguments: {@code war port rounds rootDir}; the shop's configuration comes as system properties.
 */
public final class RedeployProbe {

    private static final String APP = "shop";
    private static final String APP_LOADER = "WebappClassLoader";

    private RedeployProbe() {
    }

    public static void main(String[] args) {
        try {
            probe(args);
        } catch (Throwable failure) {
            // Payara's threads would keep the JVM alive after main ends: end it, or the test waits its whole timeout.
            failure.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
    }

    private static void probe(String[] args) throws Exception {
        File war = new File(args[0]);
        int port = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        File rootDir = new File(args[3]);

        // Booted as `java -jar` boots it: the runtime's jars unpacked and loaded as plain jars. The
        // builder API (PayaraMicro.getInstance()) loads them nested, where multi-release classes
        // are not seen and JSON-B binds no record (every body {}).
        Class<?> launcher = Class.forName("fish.payara.micro.boot.PayaraMicroLauncher");
        Object micro = launcher.getMethod("create", String[].class).invoke(null, (Object) new String[] {
                "--port", Integer.toString(port), "--nocluster", "--nohazelcast", "--rootdir", rootDir.getPath()});
        Object runtime = micro.getClass().getMethod("getRuntime").invoke(micro);
        Method deploy = runtime.getClass().getMethod("deploy", String.class, String.class, File.class);
        Method undeploy = runtime.getClass().getMethod("undeploy", String.class);

        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            boolean deployed = (Boolean) deploy.invoke(runtime, APP, "/", war);
            // A read-locked call (the engine, the Redis client) and an order placed (a locked call
            // and the checkout's Snowflake id generator, leasing a worker id in Redis).
            int read = get(http, port, "/api/inventory/MUG-BLUE");
            int order = post(http, port, "/api/orders", "{\"sku\":\"MUG-BLUE\",\"quantity\":1}");
            loaders.add(new WeakReference<>(applicationLoader()));
            System.out.println("DEPLOYED round=" + round + " ok=" + deployed + " read=" + read + " order=" + order
                    + " distlockThreads=" + appThreads() + " workerLeases=" + workerLeases());

            undeploy.invoke(runtime, APP);
            for (int i = 0; i < 5; i++) {
                System.gc();
                Thread.sleep(500);
            }
            long alive = loaders.stream().map(Reference::get).filter(loader -> loader != null).count();
            System.out.println("UNDEPLOYED round=" + round + " threads=" + Thread.getAllStackTraces().size()
                    + " appThreads=" + appThreads() + " appThreadLocals=" + applicationThreadLocals()
                    + " loadersAlive=" + alive + " loadedClasses=" + classes.getLoadedClassCount()
                    + " workerLeases=" + workerLeases() + " threadKinds=" + threadKinds());
        }
        runtime.getClass().getMethod("shutdown").invoke(runtime);
        System.exit(0);
    }

    /** The shop's leased Snowflake worker ids in Redis (key prefix {@code shop}). */
    private static List<String> workerLeases() {
        int port = URI.create(System.getProperty("distlock.redis.address")).getPort();
        try (Resp redis = Resp.connect(port, 5_000)) {
            return redis.keys("shop:id:*worker*");
        }
    }

    private static int get(HttpClient http, int port, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static int post(HttpClient http, int port, String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .timeout(Duration.ofSeconds(60)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            System.out.println("POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.statusCode();
    }

    /** The deployed application's class loader: the context class loader distlock's threads inherit from it. */
    private static ClassLoader applicationLoader() {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("distlock-") && isApplicationLoader(thread.getContextClassLoader())) {
                return thread.getContextClassLoader();
            }
        }
        return null;
    }

    /** Every live thread by name, digits as {@code #}, with how many: {@code [http-thread-pool::http-listener(#):5, ...]}. */
    private static String threadKinds() {
        java.util.TreeMap<String, Integer> kinds = new java.util.TreeMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            kinds.merge(thread.getName().replaceAll("\\d+", "#").replaceAll("[\\[\\]:,=\\s]", "_"), 1, Integer::sum);
        }
        StringBuilder text = new StringBuilder("[");
        kinds.forEach((name, count) -> text.append(text.length() > 1 ? ", " : "").append(name).append(':').append(count));
        return text.append(']').toString();
    }

    private static TreeSet<String> appThreads() {
        TreeSet<String> names = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (name.startsWith("distlock-") || name.startsWith("redisson-")) {
                names.add(name.replaceAll("\\d+", "#"));
            }
        }
        return names;
    }

    /** "thread: value class" for each thread-local value whose class an application loaded. */
    private static List<String> applicationThreadLocals() throws ReflectiveOperationException {
        List<String> found = new ArrayList<>();
        Field threadLocals = Thread.class.getDeclaredField("threadLocals");
        threadLocals.setAccessible(true);
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            Object map = threadLocals.get(thread);
            if (map == null) {
                continue;
            }
            Field tableField = map.getClass().getDeclaredField("table");
            tableField.setAccessible(true);
            for (Object entry : (Object[]) tableField.get(map)) {
                if (entry == null) {
                    continue;
                }
                Field valueField = entry.getClass().getDeclaredField("value");
                valueField.setAccessible(true);
                Object value = valueField.get(entry);
                if (value != null && isApplicationLoader(value.getClass().getClassLoader())) {
                    found.add(thread.getName() + ": " + value.getClass().getName());
                }
            }
        }
        return found;
    }

    private static boolean isApplicationLoader(ClassLoader loader) {
        return loader != null && loader.getClass().getSimpleName().equals(APP_LOADER);
    }
}
