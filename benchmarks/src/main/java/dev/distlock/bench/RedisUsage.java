package dev.distlock.bench;

import dev.distlock.testkit.Resp;

import java.io.IOException;

/** Reads from Redis's INFO how many commands it has run and how much CPU it has used, in µs. */
final class RedisUsage implements AutoCloseable {

    private final Resp redis;

    RedisUsage(String url) throws IOException {
        redis = Resp.connect(url, 10_000);
    }

    /** @return {commands run so far (this INFO not yet among them), CPU used so far in µs} */
    long[] read() throws IOException {
        String info = (String) redis.command("INFO", "all");
        long commands = 0;
        double cpuSeconds = 0;
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int start = line.indexOf("calls=") + "calls=".length();
                commands += Long.parseLong(line.substring(start, line.indexOf(',', start)));
            } else if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return new long[] {commands, Math.round(cpuSeconds * 1_000_000)};
    }

    @Override
    public void close() throws IOException {
        redis.close();
    }
}
