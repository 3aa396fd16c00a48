package dev.distlock.redis;

import dev.distlock.DistlockException;
import dev.distlock.LockDefinitionException;
import dev.distlock.spi.Durations;
import dev.distlock.spi.LockBackendProvider.Settings;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReplicatedServersConfig;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns {@code distlock.redis.*} (or the Redisson YAML named by {@code distlock.redis.config})
 * into a Redisson configuration, checking every value at deployment.
 */
final class RedisSettings {

    static final String PREFIX = "distlock.redis.";
    static final String DEFAULT_ADDRESS = "redis://127.0.0.1:6379";

    private final Settings config;
    /** Whether an address seen so far uses {@code rediss://}. */
    private boolean tls;

    private RedisSettings(Settings config) {
        this.config = config;
    }

    /**
     * @return a fresh Redisson config for every call (Redisson keeps state in it)
     * @throws LockDefinitionException naming the key and the value that is wrong
     */
    static org.redisson.config.Config redissonConfig(Settings config) {
        return new RedisSettings(config).build();
    }

    /** Where the client connects, without credentials, for messages. */
    static String describe(Settings config) {
        Optional<String> yaml = config.raw(PREFIX + "config");
        if (yaml.isPresent()) {
            return "the Redis of " + yaml.get();
        }
        String mode = config.raw(PREFIX + "mode").orElse("single");
        return mode + " " + withoutCredentials(config.raw(PREFIX + "address")
                .or(() -> config.raw(PREFIX + "addresses")).orElse(DEFAULT_ADDRESS));
    }

    private org.redisson.config.Config build() {
        Optional<String> yaml = string("config");
        if (yaml.isPresent()) {
            return fromYaml(yaml.get());
        }
        org.redisson.config.Config redisson = new org.redisson.config.Config();
        String mode = string("mode").orElse("single").strip().toLowerCase(Locale.ROOT);
        BaseConfig<?> servers = switch (mode) {
            case "single" -> single(redisson.useSingleServer());
            case "sentinel" -> sentinel(redisson.useSentinelServers());
            case "cluster" -> {
                ClusterServersConfig cluster = redisson.useClusterServers();
                addresses().forEach(cluster::addNodeAddress);
                yield cluster;
            }
            case "replicated" -> {
                ReplicatedServersConfig replicated = redisson.useReplicatedServers();
                addresses().forEach(replicated::addNodeAddress);
                replicated.setDatabase(database());
                yield replicated;
            }
            default -> throw invalid("mode", mode, "must be one of single, sentinel, cluster, replicated");
        };
        // On Config, not the servers' config: Redisson 4 deprecated the latter and logs a warning
        // for each of the two whenever a config is built (several times per deployment).
        string("username").ifPresent(redisson::setUsername);
        string("password").ifPresent(redisson::setPassword);
        RedisTls.configure(redisson, config, tls);
        int connectTimeout = (int) duration("connect-timeout", 2_000);
        servers.setConnectTimeout(connectTimeout);
        if (tls) {
            redisson.setNettyHook(new RedisTls.HandshakeTimeout(connectTimeout));
        }
        long timeout = duration("timeout", 3_000);
        int retryAttempts = integer("retry-attempts", 2);
        long retryDelay = duration("retry-delay", 200);
        servers.setTimeout((int) timeout);
        servers.setRetryAttempts(retryAttempts);
        // Redisson's default (1-2 s, jittered) also spaces its connection attempts at start-up: with
        // Redis down the first locked call took 2-4 s to fail, and a command retry rarely fit into
        // the answer grace. A short constant delay keeps both within a second.
        servers.setRetryDelay(new ConstantDelay(Duration.ofMillis(retryDelay)));
        string("client-name").ifPresent(servers::setClientName);
        long watchdog = duration("watchdog-timeout", 30_000);
        if (watchdog < 1_000) {
            throw invalid("watchdog-timeout", String.valueOf(watchdog), "must be at least 1000 ms (PT1S)");
        }
        // The watchdog renews a third into the lease; one renewal may take the command timeout on
        // every attempt, with the retry delay between them, and must be answered before the lease ends.
        long slowestRenewal = timeout * (retryAttempts + 1L) + retryDelay * retryAttempts;
        long least = slowestRenewal * 3 / 2;
        if (watchdog < least) {
            throw invalid("watchdog-timeout", String.valueOf(watchdog), "must be at least " + least + " ms: the watchdog renews"
                    + " every third of it, and one renewal may take " + PREFIX + "timeout (" + timeout + " ms) on each of "
                    + (retryAttempts + 1) + " attempts (" + PREFIX + "retry-attempts + 1) with " + PREFIX + "retry-delay ("
                    + retryDelay + " ms) between them, " + slowestRenewal + " ms, more than the two thirds of the lease left;"
                    + " raise the watchdog timeout or lower the others");
        }
        redisson.setLockWatchdogTimeout(watchdog);
        return redisson;
    }

    private SingleServerConfig single(SingleServerConfig single) {
        single.setAddress(address(string("address").orElse(DEFAULT_ADDRESS), "address"));
        single.setDatabase(database());
        return single;
    }

    private SentinelServersConfig sentinel(SentinelServersConfig sentinel) {
        sentinel.setMasterName(string("master-name").orElseThrow(() ->
                invalid("master-name", "(unset)", "is required in sentinel mode: the name the Sentinels monitor")));
        addresses().forEach(sentinel::addSentinelAddress);
        sentinel.setDatabase(database());
        string("sentinel-username").ifPresent(sentinel::setSentinelUsername);
        string("sentinel-password").ifPresent(sentinel::setSentinelPassword);
        sentinel.setCheckSentinelsList(false);
        return sentinel;
    }

    private List<String> addresses() {
        String list = string("addresses").or(() -> string("address")).orElseThrow(() ->
                invalid("addresses", "(unset)", "lists the nodes, e.g. redis://10.0.0.1:26379,redis://10.0.0.2:26379"));
        List<String> addresses = Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .map(a -> address(a, "addresses")).toList();
        if (addresses.isEmpty()) {
            throw invalid("addresses", list, "names no node");
        }
        return addresses;
    }

    private String address(String address, String key) {
        String value = address.strip();
        if (!(value.startsWith("redis://") || value.startsWith("rediss://"))) {
            throw invalid(key, withoutCredentials(value), "must start with redis:// or rediss:// (TLS), e.g. " + DEFAULT_ADDRESS);
        }
        // The port follows the host, not the user:password before an '@'.
        int hostStart = Math.max(value.indexOf("//") + 2, value.lastIndexOf('@') + 1);
        int colon = value.lastIndexOf(':');
        if (colon <= hostStart || colon == value.length() - 1) {
            throw invalid(key, withoutCredentials(value), "needs host and port, e.g. " + DEFAULT_ADDRESS);
        }
        tls |= value.startsWith("rediss://");
        return value;
    }

    private int database() {
        int database = integer("database", 0);
        if (database < 0) {
            throw invalid("database", String.valueOf(database), "must be >= 0");
        }
        return database;
    }

    private org.redisson.config.Config fromYaml(String location) {
        try {
            Path path = Path.of(location);
            if (Files.isRegularFile(path)) {
                return org.redisson.config.Config.fromYAML(path.toFile());
            }
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            try (InputStream resource = loader == null ? null : loader.getResourceAsStream(location)) {
                if (resource == null) {
                    throw invalid("config", location, "is neither a file nor a class-path resource");
                }
                return org.redisson.config.Config.fromYAML(resource);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof DistlockException known) {
                throw known;
            }
            throw invalid("config", location, "could not be read as Redisson YAML: " + withoutYamlText(e.getMessage()));
        }
    }

    /**
     * SnakeYAML quotes the offending line under each position ({@code in 'string', line 3, column
     * 13:}, then the line, then a caret). That line may be {@code password: ...}, and a
     * deployment error is logged: the quoted lines go, and so does anything in double quotes.
     */
    static String withoutYamlText(String message) {
        if (message == null) {
            return "(no detail)";
        }
        StringBuilder kept = new StringBuilder();
        for (String line : message.split("\\R")) {
            if (line.isBlank() || line.startsWith("  ")) {
                continue; // a quoted line of the file, or the caret under it
            }
            kept.append(kept.length() == 0 ? "" : " ").append(line.strip());
        }
        return kept.toString().replaceAll("\"[^\"]*\"", "\"...\"");
    }

    private Optional<String> string(String key) {
        return config.raw(PREFIX + key).map(String::strip).filter(s -> !s.isEmpty());
    }

    private int integer(String key, int defaultValue) {
        Optional<String> value = string(key);
        try {
            return value.map(Integer::parseInt).orElse(defaultValue);
        } catch (NumberFormatException e) {
            throw invalid(key, value.get(), "must be a whole number");
        }
    }

    private long duration(String key, long defaultMillis) {
        Optional<String> value = string(key);
        if (value.isEmpty()) {
            return defaultMillis;
        }
        long millis;
        try {
            millis = Durations.parseMillis(value.get());
        } catch (IllegalArgumentException e) {
            throw invalid(key, value.get(), e.getMessage());
        }
        if (millis <= 0 || millis > Integer.MAX_VALUE) {
            throw invalid(key, value.get(), "must be a positive duration");
        }
        return millis;
    }

    static LockDefinitionException invalid(String key, String value, String rule) {
        return new LockDefinitionException("Config " + PREFIX + key + "=" + value + ": " + rule);
    }

    /**
     * {@code redis://user:secret@host:6379} → {@code redis://host:6379}: never print a password,
     * not even of an address too mistyped to parse ({@code redis:/user:secret@host:6379} →
     * {@code ***@host:6379}). Each of a comma-separated list on its own.
     */
    static String withoutCredentials(String address) {
        if (address.indexOf(',') >= 0) {
            return Arrays.stream(address.split(",", -1)).map(RedisSettings::withoutCredentials)
                    .collect(java.util.stream.Collectors.joining(","));
        }
        int at = address.lastIndexOf('@');
        if (at < 0) {
            return address;
        }
        int scheme = address.indexOf("//");
        return scheme >= 0 && scheme < at
                ? address.substring(0, scheme + 2) + address.substring(at + 1)
                : "***@" + address.substring(at + 1);
    }
}
