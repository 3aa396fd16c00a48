package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.testkit.ChildJvm;
import org.redisson.api.RedissonClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * The holder JVM of {@link StoppedHolderJvmIT} and {@link ForcedReleaseJvmIT}; started by them,
 * never by hand. Takes the lock with a fixed lease (or the watchdog's, renewed, for lease 0), prints
 * {@code TOKEN <token|none>}, waits for a line {@code WRITE} on standard input, then writes
 * {@code child} to the {@link FencedStore} with its token and prints {@code WRITE accepted=<true|false>},
 * and after the release {@code RELEASE ok} or {@code RELEASE LockLostException}. When its engine
 * finds the lock lost while the work runs, it prints {@code LOST <key>}.
 *
 * <p>Arguments: redis port, key prefix, fenced ({@code true}/{@code false}), lease in ms (0: the
 * watchdog), store name, parent pid.
 */
public final class StoppedHolderChild {

    static final String KEY = "stock:A";
    static final String CHILD_VALUE = "child";

    private StoppedHolderChild() {
    }

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        String prefix = args[1];
        boolean fenced = Boolean.parseBoolean(args[2]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        String store = args[4];
        ChildJvm.haltWhenParentDies(Long.parseLong(args[5]), 4);
        ChildJvm.haltAfter(60_000, 3);

        RedissonClient client = Faults.client(port);
        int exit = 0;
        try {
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).listener(new LockListener() {
                @Override
                public void lost(String key, LockMode mode) {
                    say("LOST " + key);
                }
            }).build();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            DistributedLocks.LockCall call = locks.exclusive(KEY).waitTime(Duration.ofSeconds(10));
            if (!lease.isZero()) {
                call.leaseTime(lease);
            }
            if (fenced) {
                call.fenced();
            }
            try {
                call.run(() -> {
                    OptionalLong token = locks.context().fencingToken();
                    say("TOKEN " + (token.isPresent() ? Long.toString(token.getAsLong()) : "none"));
                    String signal = readLine(in);
                    if (!"WRITE".equals(signal)) {
                        throw new IllegalStateException("expected WRITE, got " + signal);
                    }
                    say("WRITE accepted=" + FencedStore.write(client, store, CHILD_VALUE, token));
                });
                say("RELEASE ok");
            } catch (LockLostException e) {
                say("RELEASE LockLostException");
            }
        } catch (Throwable t) {
            t.printStackTrace();
            exit = 1;
        } finally {
            client.shutdown();
        }
        System.out.flush();
        Runtime.getRuntime().halt(exit);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String readLine(BufferedReader in) {
        try {
            return in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
