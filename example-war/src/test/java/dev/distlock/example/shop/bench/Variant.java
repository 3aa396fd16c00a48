package dev.distlock.example.shop.bench;

import dev.distlock.testkit.OneWayDelays;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One way of placing orders that the benchmark compares: the servers' system properties and how
 * the storm's SKU is created.
 *
 * @param name       what the tables call it
 * @param properties system properties for every server of the variant, on top of Redis and the database
 * @param stripes    the {@code "stripes"} the SKU is created with ({@code PUT /api/inventory/{sku}}), 0 for none
 * @param redisDelay the one-way delay of a proxy between the servers and Redis (a network); zero: no proxy
 * @param databaseDelay the one-way delay of a proxy between the servers and the shop's database; zero: no proxy
 */
record Variant(String name, Map<String, String> properties, int stripes, Duration redisDelay, Duration databaseDelay) {

    /** The shop's switch between order desks ({@code OrderDesks}): {@code distlock} (its default), {@code combined}, {@code redisson}, {@code row-lock}. */
    static final String DESK_PROPERTY = "shop.bench.desk";

    static final Variant DISTLOCK = new Variant("distlock", Map.of(), 0);
    static final Variant REDISSON = new Variant("redisson", Map.of(DESK_PROPERTY, "redisson"), 0);
    /**
     * The variants that run across a network too: the two locks in Redis on one hot key, where every
     * round trip to Redis inside the SKU's serialized section lengthens it and so caps orders/s.
     * (Striped stock has Redis in its sections too, sixteen at a time; left out for the run's length.)
     */
    static final List<Variant> ACROSS_A_NETWORK = List.of(DISTLOCK, REDISSON);
    /**
     * The database's row lock in place of distlock. Redis is not in its section: the order's id is a
     * Snowflake made in the JVM (its worker id leased in Redis at start and renewed in the
     * background), and its number, a daily serial from Redis, is taken before the row is locked, as
     * in every variant. Across a network that number would add a round trip to each order's time,
     * not to the section. Segment ids ({@code distlock.id.order.strategy=SEGMENT}) would take Redis
     * off the id altogether, but not yet here: without a {@code DataSource} bean in the shop the
     * generator takes {@code java:comp/DefaultDataSource}, a database inside each Payara Micro, and
     * two servers hand out the same ids; naming {@code java:app/jdbc/shop} instead fails the
     * deployment (the extension's JNDI check cannot see {@code java:app}).
     */
    static final Variant ROW_LOCK = new Variant("row-lock", Map.of(DESK_PROPERTY, "row-lock"), 0);
    static final Variant STRIPED = new Variant("striped", Map.of(), 16);
    /**
     * One key, the SKU's buyers waiting in a server served together: a batch per tenure of the lock,
     * one transaction reading and writing the stock once for all of them ({@code CombinedOrders}).
     */
    static final Variant COMBINED = new Variant("combined", Map.of(DESK_PROPERTY, "combined"), 0);

    /**
     * The variants that run with the database across a network too: where a production database is
     * 0.2–1 ms away, an order's dozen statements keep one SKU's lock for several milliseconds, the
     * single key's section grows with every round trip, and the row lock's and stripes' do too but
     * run side by side.
     */
    static final List<Variant> ACROSS_THE_DATABASE = List.of(DISTLOCK, ROW_LOCK, STRIPED, COMBINED);

    /** Every variant, in the order the tables list them. */
    static final List<Variant> ALL = List.of(DISTLOCK, REDISSON, ROW_LOCK, STRIPED, COMBINED);

    Variant {
        Objects.requireNonNull(name, "name");
        properties = Map.copyOf(properties);
        if (stripes < 0) {
            throw new IllegalArgumentException("stripes of " + name + ": must be >= 0, was " + stripes);
        }
        if (redisDelay.isNegative()) {
            throw new IllegalArgumentException("redisDelay of " + name + ": must not be negative, was " + redisDelay);
        }
        if (databaseDelay.isNegative()) {
            throw new IllegalArgumentException("databaseDelay of " + name + ": must not be negative, was " + databaseDelay);
        }
    }

    Variant(String name, Map<String, String> properties, int stripes) {
        this(name, properties, stripes, Duration.ZERO, Duration.ZERO);
    }

    /** This variant with Redis {@code delay} away, one way: {@code distlock @1ms}. */
    Variant across(Duration delay) {
        return new Variant(name + " @" + OneWayDelays.millis(delay) + "ms", properties, stripes, delay, databaseDelay);
    }

    /** This variant with the database {@code delay} away, one way: {@code striped db@1ms}. */
    Variant databaseAcross(Duration delay) {
        return new Variant(name + " db@" + OneWayDelays.millis(delay) + "ms", properties, stripes, redisDelay, delay);
    }

    /** Whether Redis and the database are on loopback, no proxy between them and the servers. */
    boolean onLoopback() {
        return redisDelay.isZero() && databaseDelay.isZero();
    }

    /** The variant this one was made from by {@link #across} or {@link #databaseAcross}: {@code distlock} for {@code distlock @1ms}. */
    String base() {
        int at = name.indexOf(' ');
        return at < 0 ? name : name.substring(0, at);
    }

    /** {@code striped-4}: striped stock in another number of stripes than {@link #STRIPED}'s. */
    private static final java.util.regex.Pattern STRIPED_N = java.util.regex.Pattern.compile("striped-(\\d{1,4})");

    /** The most stripes the shop lets a SKU have ({@code ShopLimits.MAX_STRIPES}). */
    private static final int MAX_STRIPES = 64;

    private static int stripes(int count) {
        if (count < 2 || count > MAX_STRIPES) {
            throw new IllegalArgumentException("striped-N: N must be between 2 and " + MAX_STRIPES + " (the shop's limit), was " + count);
        }
        return count;
    }

    /** The variants a comma-separated list names, in the list's order; {@code striped-N} for N stripes. */
    static List<Variant> named(String names) {
        Map<String, Variant> known = new LinkedHashMap<>();
        ALL.forEach(variant -> known.put(variant.name(), variant));
        List<Variant> chosen = new ArrayList<>();
        for (String name : names.split(",")) {
            Variant variant = known.get(name.strip());
            java.util.regex.Matcher stripes = STRIPED_N.matcher(name.strip());
            if (variant == null && stripes.matches()) {
                variant = new Variant(name.strip(), Map.of(), stripes(Integer.parseInt(stripes.group(1))));
            }
            if (variant == null) {
                throw new IllegalArgumentException("unknown variant '" + name.strip() + "'; known: " + String.join(",", known.keySet())
                        + ", and striped-N for N stripes");
            }
            if (!chosen.contains(variant)) {
                chosen.add(variant);
            }
        }
        return List.copyOf(chosen);
    }

    /** The JSON body that creates the SKU with {@code stock} units. */
    String restockBody(int stock) {
        return stripes == 0 ? "{\"stock\":" + stock + "}" : "{\"stock\":" + stock + ",\"stripes\":" + stripes + "}";
    }

    /** The server properties and stripes, for people to read. */
    String describe() {
        List<String> parts = new ArrayList<>();
        properties.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> parts.add("`-D" + entry.getKey() + "=" + entry.getValue() + "`"));
        if (stripes > 0) {
            parts.add("SKU created with `\"stripes\": " + stripes + "`");
        }
        if (!redisDelay.isZero()) {
            parts.add("Redis behind a proxy that delays each byte " + OneWayDelays.millis(redisDelay) + " ms each way");
        }
        if (!databaseDelay.isZero()) {
            parts.add("the database behind a proxy that delays each byte " + OneWayDelays.millis(databaseDelay) + " ms each way");
        }
        return parts.isEmpty() ? "the shop as it is" : String.join(", ", parts);
    }
}
