package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.Durations;
import dev.distlock.internal.id.DailySerialGenerator;
import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.internal.id.SerialFormat;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdStrategy;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One id generator's settings, read from {@code distlock.id.<name>.<setting>}, falling back to
 * {@code distlock.id.<setting>}, then to the default; checked at deployment.
 *
 * @param workerId   -1 for {@code auto} (leased in Redis)
 * @param clockFloor whether a fixed worker id keeps its clock floor in Redis ({@code clock-floor=redis}, the default)
 */
record IdDefinition(String name, IdStrategy strategy, SnowflakeLayout layout, long workerId, boolean clockFloor, long workerLeaseMillis,
                    long maxClockBackwardMillis, SegmentIdGenerator.Settings segment, Optional<String> dataSource,
                    String table, Duration layoutWarning, DailySerialGenerator.Settings serial) {

    static final String PREFIX = "distlock.id.";
    static final String DEFAULT_DATASOURCE = "java:comp/DefaultDataSource";
    static final long AUTO_WORKER = -1;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    static IdDefinition read(Config config, String name, IdStrategy annotated) {
        if (!NAME.matcher(name).matches()) {
            throw new LockDefinitionException("@GeneratedId(\"" + name + "\"): a generator name has 1 to 100 letters, digits, '.', '_' or '-'");
        }
        Settings settings = new Settings(config, name);
        Optional<IdStrategy> configured = settings.own("strategy", IdDefinition::strategy);
        IdStrategy strategy = configured
                .or(() -> annotated == IdStrategy.CONFIGURED ? Optional.empty() : Optional.of(annotated))
                .or(() -> settings.global("strategy", IdDefinition::strategy))
                .orElse(IdStrategy.SNOWFLAKE);
        if (annotated == IdStrategy.DAILY_SERIAL && strategy != IdStrategy.DAILY_SERIAL) {
            throw settings.invalid("strategy", "'" + name + "' is injected as DailySerials, which are always DAILY_SERIAL;"
                    + " remove the setting or use another name for the " + strategy + " generator");
        }
        if (annotated != IdStrategy.DAILY_SERIAL && strategy == IdStrategy.DAILY_SERIAL) {
            throw settings.invalid("strategy", "DAILY_SERIAL numbers are text such as 20261124-000042, not a long id;"
                    + " inject dev.distlock.id.DailySerials under this name instead");
        }

        SnowflakeLayout layout;
        try {
            layout = new SnowflakeLayout(
                    settings.value("epoch", Instant::parse).orElse(SnowflakeLayout.DEFAULT_EPOCH),
                    settings.value("time-bits", Integer::parseInt).orElse(41),
                    settings.value("worker-bits", Integer::parseInt).orElse(10),
                    settings.value("sequence-bits", Integer::parseInt).orElse(12));
        } catch (IllegalArgumentException e) {
            throw settings.invalid("epoch/time-bits/worker-bits/sequence-bits", e.getMessage());
        }
        long workerId = settings.value("worker-id", value -> value.equalsIgnoreCase("auto") ? AUTO_WORKER : Long.parseLong(value))
                .orElse(AUTO_WORKER);
        if (workerId != AUTO_WORKER && (workerId < 0 || workerId > layout.maxWorker())) {
            throw settings.invalid("worker-id", workerId + " does not fit " + layout.workerBits() + " worker bits: use 0 to "
                    + layout.maxWorker() + ", or 'auto' to lease one in Redis");
        }
        boolean clockFloor = settings.value("clock-floor", IdDefinition::clockFloor).orElse(true);
        long lease = settings.value("worker-lease", Durations::parseMillis).orElse(30_000L);
        if (lease < 1_000) {
            throw settings.invalid("worker-lease", "must be at least 1 s (PT1S), was " + lease + " ms");
        }
        long backward = settings.value("max-clock-backward", Durations::parseMillis).orElse(10L);
        if (backward < 0 || backward > 5_000) {
            throw settings.invalid("max-clock-backward", "must be between 0 and 5000 ms, was " + backward);
        }
        SegmentIdGenerator.Settings segment = SegmentIdGenerator.Settings.defaults();
        if (strategy == IdStrategy.SEGMENT) {
            try {
                long step = settings.value("step", Long::parseLong).orElse(1_000L);
                segment = new SegmentIdGenerator.Settings(step,
                        settings.value("min-step", Long::parseLong).orElse(Math.min(step, 1_000L)),
                        settings.value("max-step", Long::parseLong).orElse(Math.max(step, 1_000_000L)),
                        settings.value("segment-period", text -> Duration.ofMillis(Durations.parseMillis(text))).orElse(Duration.ofMinutes(5)),
                        storeTimeout(settings));
            } catch (IllegalArgumentException e) {
                throw settings.invalid("step/min-step/max-step/segment-period/store-timeout", e.getMessage());
            }
        }
        String table = config.getOptionalValue(PREFIX + "table", String.class).map(String::strip).orElse(JdbcSegmentStore.DEFAULT_TABLE);
        if (strategy != IdStrategy.SNOWFLAKE) {
            // The rule JdbcSegmentStore enforces when the generator is made, checked here so that it fails the deployment.
            try {
                JdbcSegmentStore.checkTable(table);
            } catch (IllegalArgumentException e) {
                throw new LockDefinitionException("Config " + PREFIX + "table=" + table + " (id generator '" + name + "'): " + e.getMessage());
            }
        }
        Duration layoutWarning = settings.value("layout-warning", text -> Duration.ofMillis(Durations.parseMillis(text)))
                .orElse(Duration.ofDays(365));
        if (layoutWarning.isNegative() || layoutWarning.isZero()) {
            throw settings.invalid("layout-warning", "must be a positive duration (e.g. P365D), was " + layoutWarning);
        }
        DailySerialGenerator.Settings serial = DailySerialGenerator.Settings.defaults();
        if (strategy == IdStrategy.DAILY_SERIAL) {
            if (name.length() > DailySerialGenerator.MAX_NAME_LENGTH) {
                throw new LockDefinitionException("@GeneratedId(\"" + name + "\") DailySerials: a daily serial's name has at most "
                        + DailySerialGenerator.MAX_NAME_LENGTH + " characters (its table row adds the date)");
            }
            ZoneId zone = settings.own("zone", ZoneId::of).orElse(ZoneOffset.UTC);
            SerialFormat format = settings.own("format", SerialFormat::parse).orElseGet(() -> SerialFormat.parse(SerialFormat.DEFAULT));
            long step = settings.own("step", Long::parseLong).orElse(100L);
            try {
                serial = new DailySerialGenerator.Settings(zone, format, step, storeTimeout(settings));
            } catch (IllegalArgumentException e) {
                throw settings.invalid("step/store-timeout", e.getMessage());
            }
        }
        return new IdDefinition(name, strategy, layout, workerId, clockFloor, lease, backward, segment,
                settings.value("datasource", String::strip), table, layoutWarning, serial);
    }

    private static Duration storeTimeout(Settings settings) {
        return settings.value("store-timeout", text -> Duration.ofMillis(Durations.parseMillis(text))).orElse(Duration.ofSeconds(10));
    }

    /** Segments and daily serials lease their ranges from a database table. */
    boolean needsDataSource() {
        return strategy == IdStrategy.SEGMENT || strategy == IdStrategy.DAILY_SERIAL;
    }

    /** Warns (returns a message) when the layout runs out within {@code layout-warning}; fails when it has run out. */
    Optional<String> checkLayoutLifetime(Instant now) {
        Instant end = layout.exhaustedAt();
        if (!end.isAfter(now)) {
            throw new LockDefinitionException("Id generator '" + name + "': the Snowflake layout (epoch " + layout.epoch() + ", "
                    + layout.timeBits() + " time bits) ran out at " + end + "; set distlock.id." + name + ".epoch later or add time bits");
        }
        if (end.isBefore(now.plus(layoutWarning))) {
            return Optional.of("Id generator '" + name + "': the Snowflake layout runs out at " + end
                    + ", within " + layoutWarning.toDays() + " days (distlock.id." + name + ".layout-warning); plan a later "
                    + "epoch or more time bits");
        }
        return Optional.empty();
    }

    /** {@code redis}: a fixed worker id keeps its clock floor in Redis; {@code none}: it keeps none. */
    private static boolean clockFloor(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "redis" -> true;
            case "none" -> false;
            default -> throw new IllegalArgumentException("use redis (keep the floor in Redis) or none (keep none: a restart with the"
                    + " clock set back can then repeat ids)");
        };
    }

    /** CONFIGURED means "ask configuration", so configuration saying it would be a loop: rejected. */
    private static IdStrategy strategy(String value) {
        String upper = value.strip().toUpperCase(Locale.ROOT);
        if (upper.equals(IdStrategy.SNOWFLAKE.name()) || upper.equals(IdStrategy.SEGMENT.name())
                || upper.equals(IdStrategy.DAILY_SERIAL.name())) {
            return IdStrategy.valueOf(upper);
        }
        throw new IllegalArgumentException("unknown strategy; use SNOWFLAKE or SEGMENT (or DAILY_SERIAL for DailySerials)");
    }

    /** Reads one generator's keys with the global fallback, naming the key that was wrong. */
    private record Settings(Config config, String name) {

        <T> Optional<T> value(String setting, Function<String, T> parse) {
            Optional<T> own = own(setting, parse);
            return own.isPresent() ? own : global(setting, parse);
        }

        <T> Optional<T> own(String setting, Function<String, T> parse) {
            return read(PREFIX + name + "." + setting, parse);
        }

        <T> Optional<T> global(String setting, Function<String, T> parse) {
            return read(PREFIX + setting, parse);
        }

        private <T> Optional<T> read(String key, Function<String, T> parse) {
            Optional<String> raw = config.getOptionalValue(key, String.class).map(String::strip).filter(s -> !s.isEmpty());
            if (raw.isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(parse.apply(raw.get()));
            } catch (IllegalArgumentException | java.time.DateTimeException e) {
                throw new LockDefinitionException("Config " + key + "=" + raw.get() + " (id generator '" + name + "'): "
                        + (e instanceof NumberFormatException ? "not a whole number" : e.getMessage()));
            }
        }

        /**
         * Names the keys the user actually set, the generator's own or the global one, so that the
         * message points at a line in their configuration; {@code settings} are separated by '/'.
         */
        LockDefinitionException invalid(String settings, String problem) {
            List<String> keys = Arrays.stream(settings.split("/")).map(this::keyInEffect).flatMap(Optional::stream).toList();
            String named = keys.isEmpty() ? PREFIX + name + "." + settings : String.join(", ", keys);
            return new LockDefinitionException("Config " + named + " (id generator '" + name + "'): " + problem);
        }

        private Optional<String> keyInEffect(String setting) {
            return Stream.of(PREFIX + name + "." + setting, PREFIX + setting)
                    .filter(key -> config.getOptionalValue(key, String.class).filter(value -> !value.isBlank()).isPresent())
                    .findFirst();
        }
    }
}
