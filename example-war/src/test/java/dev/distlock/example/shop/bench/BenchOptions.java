package dev.distlock.example.shop.bench;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.testkit.OneWayDelays;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one benchmark run does: which variants, how big each storm is, where the servers come from
 * and where the report goes.
 *
 * @param orders        orders per measured storm; the storm's SKU has exactly this stock
 * @param clients       client threads, each sending one order at a time
 * @param warmupOrders  orders per server before a variant's measured storms, on a SKU of their own
 * @param rounds        how often the one-server and two-server storms are repeated per variant
 * @param redisDelays   one-way delays between the servers and Redis for the rows across a network; empty for none
 * @param acrossANetwork which of the variants run again at each of those delays (those of them that are chosen)
 * @param database      {@code postgres} (a PostgreSQL server started for the run), {@code h2} (an H2 server started
 *                      for the run) or the JDBC URL of a database elsewhere
 * @param databaseChosen whether the command line named the database; a PostgreSQL that cannot run here then fails
 *                      the run, where the default falls back to H2 and says so
 * @param databaseDelays one-way delays between the servers and the database for the rows across a network; empty for none
 * @param acrossTheDatabase which of the variants run again at each of those delays
 * @param delaysTogether the smoke run's one row across a network: Redis and the database both delayed, in one pair of servers
 * @param soldOut       after each round, a sold-out storm per variant on loopback: four orders for every unit
 * @param serverJvm     the servers' JVM options
 * @param extraServerJvm more JVM options for the servers, after those (a flight recording, a diagnostic flag)
 * @param profile       record the servers' locked sections with JFR, for the section breakdown
 * @param command       the command line, as the report prints it
 */
record BenchOptions(List<Variant> variants, int orders, int clients, int warmupOrders, int warmupStorms, int rounds,
                    List<Duration> redisDelays, List<Variant> acrossANetwork, String database, boolean databaseChosen,
                    List<Duration> databaseDelays, List<Variant> acrossTheDatabase, boolean delaysTogether, boolean soldOut,
                    List<String> serverJvm,
                    List<String> extraServerJvm, boolean profile,
                    Path payaraJar, Path war, Path workDir, Path out, String command) {

    /** Enough for seconds of storm on loopback; with the database 1 ms away a round of one variant takes a minute. */
    static final int DEFAULT_ORDERS = 3_000;
    /** The median of three rounds is what the report's conclusions rest on. */
    static final int DEFAULT_ROUNDS = 3;
    static final int DEFAULT_CLIENTS = 64;
    /** Per server and warm-up storm; the storms go on until the servers stop getting faster (ShopBench.warmUp). */
    static final int DEFAULT_WARMUP = 5_000;
    /** At most this many warm-up storms, fewer once the servers stop getting faster. */
    static final int DEFAULT_WARMUP_STORMS = 10;
    static final List<Duration> DEFAULT_DELAYS = List.of(Duration.ofMillis(1).dividedBy(4), Duration.ofMillis(1));
    static final int QUICK_ORDERS = 300;
    static final int QUICK_CLIENTS = 16;
    static final int QUICK_WARMUP = 200;
    static final List<Duration> QUICK_DELAYS = List.of(Duration.ofMillis(1));
    /** The smoke run shows that the mode works with one variant: each more costs two server starts. */
    static final List<Variant> QUICK_ACROSS_A_NETWORK = List.of(Variant.DISTLOCK);
    static final String POSTGRES = "postgres";
    static final String H2 = "h2";
    /** A sold-out storm sends this many orders for every unit in stock. */
    static final int SOLD_OUT_ORDERS_PER_UNIT = 4;

    BenchOptions {
        variants = List.copyOf(variants);
        redisDelays = List.copyOf(redisDelays);
        acrossANetwork = List.copyOf(acrossANetwork);
        databaseDelays = List.copyOf(databaseDelays);
        acrossTheDatabase = List.copyOf(acrossTheDatabase);
        Objects.requireNonNull(database, "database");
        if (!database.equals(POSTGRES) && !database.equals(H2) && !database.startsWith("jdbc:")) {
            throw new IllegalArgumentException("--database: postgres, h2 or a JDBC URL, was '" + database + "'");
        }
        if (delaysTogether && redisDelays.size() != databaseDelays.size()) {
            throw new IllegalArgumentException("delays together need as many Redis delays as database delays: "
                    + redisDelays + ", " + databaseDelays);
        }
        serverJvm = List.copyOf(serverJvm);
        extraServerJvm = List.copyOf(extraServerJvm);
        if (variants.isEmpty()) {
            throw new IllegalArgumentException("--variants: name at least one");
        }
        positive("--orders", orders);
        positive("--clients", clients);
        positive("--rounds", rounds);
        positive("--warmup-storms", warmupStorms);
        if (warmupOrders < 0) {
            throw new IllegalArgumentException("--warmup must be >= 0, was " + warmupOrders);
        }
        Objects.requireNonNull(payaraJar, "payaraJar");
        Objects.requireNonNull(war, "war");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(command, "command");
    }

    /**
     * The build's smoke run: every variant on PostgreSQL, then distlock with Redis and the database
     * both 1 ms away (one pair of servers shows that both proxies work), small storms, one round
     * with its sold-out storms, and the tests' small-machine servers (they start twice as fast; the
     * run's figures mean nothing anyway).
     */
    static BenchOptions quick(Path payaraJar, Path war, Path workDir, Path out, String command) {
        return new BenchOptions(Variant.ALL, QUICK_ORDERS, QUICK_CLIENTS, QUICK_WARMUP, 1, 1, QUICK_DELAYS, QUICK_ACROSS_A_NETWORK,
                POSTGRES, false, QUICK_DELAYS, QUICK_ACROSS_A_NETWORK, true, true,
                PayaraNode.SMALL_MACHINE, List.of(), true, payaraJar, war, workDir, out, command);
    }

    /**
     * Every variant the run measures: the chosen ones, then those with Redis across a network, delay
     * by delay, then those with the database across one; or, delays together, each variant with
     * both at once.
     */
    List<Variant> runs() {
        List<Variant> runs = new ArrayList<>(variants);
        if (delaysTogether) {
            for (int i = 0; i < redisDelays.size(); i++) {
                for (Variant variant : variants) {
                    if (acrossANetwork.contains(variant) && acrossTheDatabase.contains(variant)) {
                        runs.add(variant.across(redisDelays.get(i)).databaseAcross(databaseDelays.get(i)));
                    }
                }
            }
            return List.copyOf(runs);
        }
        for (Duration delay : redisDelays) {
            for (Variant variant : variants) {
                if (acrossANetwork.contains(variant)) {
                    runs.add(variant.across(delay));
                }
            }
        }
        for (Duration delay : databaseDelays) {
            for (Variant variant : variants) {
                if (acrossTheDatabase.contains(variant)) {
                    runs.add(variant.databaseAcross(delay));
                }
            }
        }
        return List.copyOf(runs);
    }

    /** The orders of a sold-out storm, for a stock of {@link #soldOutStock()}. */
    int soldOutOrders() {
        return Math.max(orders - orders % SOLD_OUT_ORDERS_PER_UNIT, SOLD_OUT_ORDERS_PER_UNIT);
    }

    /** The stock of a sold-out storm: a quarter of its orders. */
    int soldOutStock() {
        return soldOutOrders() / SOLD_OUT_ORDERS_PER_UNIT;
    }

    /** How the servers' JVMs ran, for the report (the flight recording of the section breakdown apart). */
    String serverJvmText() {
        String options = "`" + String.join(" ", serverJvm) + "`";
        if (serverJvm.equals(PayaraNode.PRODUCTION)) {
            options += ": the JDK's default JIT (C2) and collector (G1), as a production server runs";
        } else if (serverJvm.equals(PayaraNode.SMALL_MACHINE)) {
            options += ": the tests' small-machine options (C1 only, serial GC), not a production setting";
        }
        return extraServerJvm.isEmpty() ? options : options + "; and `" + String.join(" ", extraServerJvm) + "` (`--server-jvm-option`)";
    }

    /**
     * Reads the command line. {@code --quick} sets the small sizes; {@code --orders}, {@code --clients},
     * {@code --warmup} and {@code --rounds} override them wherever they stand.
     *
     * @throws IllegalArgumentException with a message for people when an option is wrong
     */
    static BenchOptions parse(String[] args, String command) {
        boolean quick = false;
        Integer orders = null;
        Integer clients = null;
        Integer warmup = null;
        Integer warmupStorms = null;
        Integer rounds = null;
        List<Duration> delays = null;
        List<Duration> databaseDelays = null;
        String database = POSTGRES;
        boolean databaseChosen = false;
        boolean soldOut = true;
        List<String> serverJvm = PayaraNode.PRODUCTION;
        List<String> extraServerJvm = new ArrayList<>();
        boolean profile = true;
        List<Variant> variants = Variant.ALL;
        Path out = Path.of("target", "shop-bench");
        Path war = Path.of("target", "shop.war");
        Path payara = Path.of("target", "payara-micro.jar");
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.startsWith(SERVER_JVM_OPTION + "=")) {
                extraServerJvm.add(jvmOption(option.substring(SERVER_JVM_OPTION.length() + 1)));
                continue;
            }
            switch (option) {
                case "--quick" -> quick = true;
                case "--orders" -> orders = number(args, ++i, option);
                case "--clients" -> clients = number(args, ++i, option);
                case "--warmup" -> warmup = number(args, ++i, option);
                case "--warmup-storms" -> warmupStorms = number(args, ++i, option);
                case "--rounds" -> rounds = number(args, ++i, option);
                case "--variants" -> variants = Variant.named(value(args, ++i, option));
                case "--redis-delays" -> delays = delays(value(args, ++i, option));
                case "--database-delays" -> databaseDelays = delays(value(args, ++i, option));
                case "--database" -> {
                    database = value(args, ++i, option);
                    databaseChosen = true;
                }
                case "--no-sold-out" -> soldOut = false;
                case "--small-jvm" -> serverJvm = PayaraNode.SMALL_MACHINE;
                case SERVER_JVM_OPTION -> extraServerJvm.add(jvmOption(value(args, ++i, option)));
                case "--no-profile" -> profile = false;
                case "--out" -> out = Path.of(value(args, ++i, option));
                case "--war" -> war = Path.of(value(args, ++i, option));
                case "--payara" -> payara = Path.of(value(args, ++i, option));
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        return new BenchOptions(variants,
                orders != null ? orders : quick ? QUICK_ORDERS : DEFAULT_ORDERS,
                clients != null ? clients : quick ? QUICK_CLIENTS : DEFAULT_CLIENTS,
                warmup != null ? warmup : quick ? QUICK_WARMUP : DEFAULT_WARMUP,
                warmupStorms != null ? warmupStorms : quick ? 1 : DEFAULT_WARMUP_STORMS,
                rounds != null ? rounds : quick ? 1 : DEFAULT_ROUNDS, delays != null ? delays : quick ? QUICK_DELAYS : DEFAULT_DELAYS,
                quick ? QUICK_ACROSS_A_NETWORK : Variant.ACROSS_A_NETWORK, database, databaseChosen,
                databaseDelays != null ? databaseDelays : quick ? QUICK_DELAYS : DEFAULT_DELAYS,
                quick ? QUICK_ACROSS_A_NETWORK : Variant.ACROSS_THE_DATABASE,
                quick && delays == null && databaseDelays == null, soldOut, serverJvm, extraServerJvm, profile,
                payara, war, out.resolve("servers"), out, command);
    }

    /** {@code 0.25,1}: one-way delays in milliseconds; {@code 0} alone is none. */
    static List<Duration> delays(String list) {
        try {
            return OneWayDelays.parse(list);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--redis-delays/--database-delays: " + e.getMessage(), e);
        }
    }

    /** A JVM option goes to the servers' command line as it is: one that is not one would keep them from starting. */
    private static String jvmOption(String option) {
        if (!option.startsWith("-")) {
            throw new IllegalArgumentException(SERVER_JVM_OPTION + ": a JVM option starts with '-', was '" + option + "'");
        }
        return option;
    }

    static final String SERVER_JVM_OPTION = "--server-jvm-option";

    static final String USAGE = """
            usage: shop-bench.sh [--no-build] [--quick] [--orders N] [--clients N] [--warmup N] [--rounds N]
                                 [--variants distlock,redisson,row-lock,striped,combined] [--database postgres|h2|URL]
                                 [--redis-delays MS,MS] [--database-delays MS,MS] [--no-sold-out]
                                 [--small-jvm] [--server-jvm-option OPT]... [--no-profile] [--out DIR]
              --quick         a smoke run: 300 orders, 16 clients, 200 warm-up orders per server, one round, and
                              distlock alone with Redis and the database both 1 ms away, in one pair of servers
              --orders N      orders per storm, against exactly N units (default 3000)
              --clients N     client threads, one order at a time each (default 64)
              --warmup N      warm-up orders per server in each warm-up storm, not measured (default 5000; a storm
                              stops sending after 30 s)
              --warmup-storms N  warm-up storms at most; fewer once one is no more than 10 % faster than the last
                              and the servers' JIT compilers took at most 3 % of their CPU in it (default 10; 1 with --quick)
              --rounds N      repeat each variant's storms N times; the report adds the median (default 3; 1 with --quick)
              --variants ...  which variants, in this order (default all five); striped-N: striped over N stripes (2-64)
              --database      postgres: a PostgreSQL server of the run's own, from Maven Central's binaries (default;
                              falls back to h2 where it cannot run); h2: an H2 server process of the run's own, quicker
                              to start but no production database; or the JDBC URL of a database elsewhere
              --redis-delays  one-way delays (ms) of a proxy between the servers and Redis, each a run of distlock and
                              redisson across that network (default 0.25,1; 0 for none)
              --database-delays one-way delays (ms) of a proxy between the servers and the database, each a run of
                              distlock, row-lock, striped and combined across that network (default 0.25,1; 0 for none)
              --no-sold-out   no sold-out storms (by default, after each round's storms, one storm per variant on
                              two servers with four orders for every unit: the 409s' latency and CPU)
              --small-jvm     run the servers with the tests' options (C1 only, serial GC) instead of the JDK's defaults
              --server-jvm-option OPT
                              one more JVM option for every server (repeat it for more; also --server-jvm-option=OPT)
              --no-profile    no flight recording on the servers (and no section breakdown)
              --out DIR       where shop-bench.md, shop-bench.svg and the server logs go (default example-war/target/shop-bench)
              --war, --payara the shop's WAR and payara-micro.jar (default target/shop.war, target/payara-micro.jar)""";

    private static int number(String[] args, int index, String option) {
        String value = value(args, index, option);
        try {
            return Integer.parseInt(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, was '" + value + "'");
        }
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be >= 1, was " + value);
        }
    }
}
