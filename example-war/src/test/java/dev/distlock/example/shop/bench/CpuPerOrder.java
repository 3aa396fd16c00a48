package dev.distlock.example.shop.bench;

import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * CPU time per order placed (201) in one storm, in milliseconds, by process, from the operating
 * system's counters: what the machine spent on each order, next to how fast orders went. A variant
 * limited by its serialized section leaves the CPU idle; one limited by the machine does not.
 * {@code NaN} where a process's time could not be read (a database elsewhere).
 *
 * @param servers  the Payara servers, both of them in a one-server storm too (the idle one costs little)
 * @param redis    the Redis server
 * @param database the database server (H2 as a process of its own; PostgreSQL with its sessions' processes)
 * @param client   the benchmark's own JVM: the HTTP clients, and the proxy of the runs across a network
 * @param compiler the servers' JIT compiler threads, part of {@code servers}: high while the servers still compile
 */
record CpuPerOrder(double servers, double redis, double database, double client, double compiler) {

    static final CpuPerOrder NONE = new CpuPerOrder(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    CpuPerOrder(double servers, double redis, double database, double client) {
        this(servers, redis, database, client, Double.NaN);
    }

    /** The compiler threads' share of the servers' CPU; {@code NaN} where not read. */
    double compilerShare() {
        return compiler / servers;
    }

    /** Servers, Redis and database: the system under test, without the client. */
    double total() {
        return servers + (Double.isNaN(redis) ? 0 : redis) + (Double.isNaN(database) ? 0 : database);
    }

    /** {@code 2.10 + 0.15 + 0.60 = 2.85} (servers + Redis + database), client apart. */
    String text() {
        if (Double.isNaN(servers)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f + %s + %s = %.2f", servers, number(redis), number(database), total());
    }

    String clientText() {
        return number(client);
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "?" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** The processes whose CPU a storm counts. */
    record Meter(List<Long> servers, OptionalLong redis, OptionalLong database) {

        Meter {
            servers = List.copyOf(servers);
        }

        /** CPU time of each group so far, in ns; -1 where unreadable. */
        long[] read() {
            long servedBy = 0;
            long compiling = 0;
            for (long pid : servers) {
                OptionalLong nanos = ProcessCpu.nanos(pid);
                OptionalLong compiler = ProcessCpu.compilerNanos(pid);
                if (nanos.isEmpty()) {
                    servedBy = -1;
                    break;
                }
                servedBy += nanos.getAsLong();
                compiling = compiling < 0 || compiler.isEmpty() ? -1 : compiling + compiler.getAsLong();
            }
            return new long[] {servedBy, read(redis), database.isEmpty() ? -1 : ProcessCpu.treeNanos(database.getAsLong()).orElse(-1),
                    ProcessCpu.ownNanos(), servedBy < 0 ? -1 : compiling};
        }

        private static long read(OptionalLong pid) {
            return pid.isEmpty() ? -1 : ProcessCpu.nanos(pid.getAsLong()).orElse(-1);
        }

        /** Per order placed, between two {@link #read()}s. */
        static CpuPerOrder perOrder(long[] before, long[] after, int orders) {
            if (orders <= 0) {
                return NONE;
            }
            double[] perOrder = new double[before.length];
            for (int i = 0; i < before.length; i++) {
                perOrder[i] = before[i] < 0 || after[i] < 0 ? Double.NaN : (after[i] - before[i]) / 1e6 / orders;
            }
            return new CpuPerOrder(perOrder[0], perOrder[1], perOrder[2], perOrder[3], perOrder.length > 4 ? perOrder[4] : Double.NaN);
        }
    }
}
