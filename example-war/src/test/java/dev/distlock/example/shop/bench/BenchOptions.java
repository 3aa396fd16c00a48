package dev.distlock.example.shop.bench;

import java.nio.file.Path;
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
 * @param command       the command line, as the report prints it
 */
record BenchOptions(List<Variant> variants, int orders, int clients, int warmupOrders, int rounds,
                    Path payaraJar, Path war, Path workDir, Path out, String command) {

    static final int DEFAULT_ORDERS = 12_000;
    static final int DEFAULT_CLIENTS = 64;
    static final int DEFAULT_WARMUP = 1_500;
    static final int QUICK_ORDERS = 300;
    static final int QUICK_CLIENTS = 16;
    static final int QUICK_WARMUP = 200;

    BenchOptions {
        variants = List.copyOf(variants);
        if (variants.isEmpty()) {
            throw new IllegalArgumentException("--variants: name at least one");
        }
        positive("--orders", orders);
        positive("--clients", clients);
        positive("--rounds", rounds);
        if (warmupOrders < 0) {
            throw new IllegalArgumentException("--warmup must be >= 0, was " + warmupOrders);
        }
        Objects.requireNonNull(payaraJar, "payaraJar");
        Objects.requireNonNull(war, "war");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(command, "command");
    }

    /** The smoke run: every variant, small storms, one round. */
    static BenchOptions quick(Path payaraJar, Path war, Path workDir, Path out, String command) {
        return new BenchOptions(Variant.ALL, QUICK_ORDERS, QUICK_CLIENTS, QUICK_WARMUP, 1, payaraJar, war, workDir, out, command);
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
        int rounds = 1;
        List<Variant> variants = Variant.ALL;
        Path out = Path.of("target", "shop-bench");
        Path war = Path.of("target", "shop.war");
        Path payara = Path.of("target", "payara-micro.jar");
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--quick" -> quick = true;
                case "--orders" -> orders = number(args, ++i, option);
                case "--clients" -> clients = number(args, ++i, option);
                case "--warmup" -> warmup = number(args, ++i, option);
                case "--rounds" -> rounds = number(args, ++i, option);
                case "--variants" -> variants = Variant.named(value(args, ++i, option));
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
                rounds, payara, war, out.resolve("servers"), out, command);
    }

    static final String USAGE = """
            usage: shop-bench.sh [--no-build] [--quick] [--orders N] [--clients N] [--warmup N] [--rounds N]
                                 [--variants distlock,redisson,row-lock,striped] [--out DIR]
              --quick         a smoke run: 300 orders, 16 clients, 200 warm-up orders per server, one round
              --orders N      orders per storm, against exactly N units (default 12000)
              --clients N     client threads, one order at a time each (default 64)
              --warmup N      warm-up orders per server before each variant's storms, not measured (default 1500)
              --rounds N      repeat each variant's storms N times; the report adds the median (default 1)
              --variants ...  which variants, in this order (default all four)
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
