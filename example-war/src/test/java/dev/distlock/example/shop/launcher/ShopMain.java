package dev.distlock.example.shop.launcher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the shop until Ctrl-C: a Redis server, an H2 database server and one or two Payara Micro
 * servers, each on a free port (the first on 8080 if it is free). {@code ../shop.sh} builds
 * everything and calls this.
 *
 * <pre>
 * ShopMain [--instances N] [--port P] [--no-locking] [--war shop.war] [--payara payara-micro.jar] [--work-dir dir]
 * </pre>
 *
 * Environment: {@code DISTLOCK_REDIS_ADDRESS} (or any {@code DISTLOCK_REDIS_*}) uses that Redis
 * instead of starting one; {@code SHOP_DATASOURCE_URL} uses that database instead of an H2 server.
 */
public final class ShopMain {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    private ShopMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Options options = Options.parse(args);
        boolean ownRedis = System.getenv().keySet().stream().noneMatch(name -> name.startsWith("DISTLOCK_REDIS_"));
        String databaseUrl = blankToNull(System.getenv("SHOP_DATASOURCE_URL"));
        ShopCluster.Setup setup = new ShopCluster.Setup(options.payaraJar, options.war, options.workDir, ownRedis, databaseUrl);

        System.out.println("Starting the shop: " + options.instances + " Payara Micro server(s)" + (options.locking ? "" : ", LOCKING OFF")
                + "; logs in " + options.workDir.toAbsolutePath());
        ShopCluster cluster = ShopCluster.start(setup);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("\nStopping the shop...");
            cluster.close();
            stopped.countDown();
        }, "shop-stop"));
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= options.instances; i++) {
            names.add("shop-" + i);
        }
        long started = System.nanoTime();
        List<PayaraNode> servers;
        try {
            servers = cluster.startServers(names, options.port,
                    options.locking ? Map.of() : Map.of("shop.locking", "false"), START_TIMEOUT);
        } catch (RuntimeException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        System.out.printf("%nThe shop is up (%d s).%n", Duration.ofNanos(System.nanoTime() - started).toSeconds());
        System.out.println("  " + cluster.describeRedis());
        System.out.println("  " + cluster.database().describe());
        for (PayaraNode server : servers) {
            System.out.println("  " + server.name() + ": " + server.url() + "/api   (log: " + server.log().toAbsolutePath() + ")");
        }
        System.out.println(examples(servers));
        System.out.println("Ctrl-C stops everything.");
        stopped.await();
    }

    static String examples(List<PayaraNode> servers) {
        String first = servers.get(0).url();
        String other = servers.get(servers.size() - 1).url();
        return """

                Try it:
                  curl -s %1$s/api/inventory
                  curl -s -i -X POST %1$s/api/orders -H 'Content-Type: application/json' -d '{"sku":"MUG-BLUE","quantity":2}'
                  curl -s %1$s/api/orders/<id from the answer>
                  curl -s -X PUT %2$s/api/inventory/MUG-BLUE -H 'Content-Type: application/json' -d '{"stock":40}'
                  curl -s %2$s/api/inventory/MUG-BLUE
                  curl -s %1$s/health/ready
                """.formatted(first, other);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private record Options(int instances, int port, boolean locking, Path war, Path payaraJar, Path workDir) {

        static Options parse(String[] args) {
            int instances = 1;
            int port = 8080;
            boolean locking = true;
            Path war = Path.of("target", "shop.war");
            Path payara = Path.of("target", "payara-micro.jar");
            Path workDir = Path.of("target", "shop-run");
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--instances" -> instances = Integer.parseInt(value(args, ++i, arg));
                    case "--port" -> port = Integer.parseInt(value(args, ++i, arg));
                    case "--no-locking" -> locking = false;
                    case "--war" -> war = Path.of(value(args, ++i, arg));
                    case "--payara" -> payara = Path.of(value(args, ++i, arg));
                    case "--work-dir" -> workDir = Path.of(value(args, ++i, arg));
                    case "-h", "--help" -> usage(0);
                    default -> {
                        System.err.println("unknown option " + arg);
                        usage(2);
                    }
                }
            }
            if (instances < 1 || instances > 4) {
                System.err.println("--instances must be 1 to 4");
                usage(2);
            }
            return new Options(instances, port, locking, war, payara, workDir);
        }

        private static String value(String[] args, int index, String option) {
            if (index >= args.length) {
                System.err.println(option + " needs a value");
                usage(2);
            }
            return args[index];
        }

        private static void usage(int status) {
            System.err.println("""
                    usage: shop.sh [--instances N] [--port P] [--no-locking]
                      --instances N   Payara Micro servers sharing one Redis and one database (1 to 4, default 1)
                      --port P        port of the first server if free (default 8080; the others get free ports)
                      --no-locking    place orders without distlock, to watch the oversell
                    environment:
                      DISTLOCK_REDIS_ADDRESS (and other DISTLOCK_REDIS_*)  use this Redis instead of starting one
                      SHOP_DATASOURCE_URL (+ SHOP_DATASOURCE_USER, _PASSWORD)  use this database instead of an H2 server""");
            System.exit(status);
        }
    }
}
