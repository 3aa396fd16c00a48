package dev.distlock.testkit;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Prometheus server of the test's own (the {@code prometheus} binary on the PATH, Debian's
 * package or a release), scraping the shop's servers every second, and its HTTP API: what an
 * operator's Prometheus sees of distlock, asked as the dashboard asks.
 */
public final class LivePrometheus implements AutoCloseable {

    /** Why a check that needs Prometheus did not run. */
    public static final String MISSING = "needs the prometheus binary on the PATH: apt-get install prometheus (Debian, Ubuntu), "
            + "or a release from prometheus.io unpacked onto the PATH";

    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration ANSWER = Duration.ofSeconds(10);

    private final Process process;
    private final Path directory;
    private final String url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(ANSWER).build();

    private LivePrometheus(Process process, Path directory, String url) {
        this.process = process;
        this.directory = directory;
        this.url = url;
    }

    /** The {@code prometheus} executable on the PATH; empty when there is none. */
    public static Optional<Path> binary() {
        return onPath(List.of("prometheus"));
    }

    /** The first executable on the PATH named one of {@code names}, in the PATH's order; empty when there is none. */
    public static Optional<Path> onPath(List<String> names) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .filter(entry -> !entry.isBlank())
                .flatMap(entry -> names.stream().map(name -> Path.of(entry, name)))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * Starts Prometheus on a free port, scraping {@code /metrics} of each of {@code servers}
     * ({@code http://host:port}) every second, and waits until it has scraped every one of them.
     *
     * @param directory where its configuration, data and log go (emptied first)
     */
    public static LivePrometheus start(Path binary, List<String> servers, Path directory) throws IOException, InterruptedException {
        Directories.deleteQuietly(directory);
        Files.createDirectories(directory);
        String targets = servers.stream().map(server -> "'" + URI.create(server).getAuthority() + "'").collect(Collectors.joining(", "));
        Path config = directory.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: shop
                    metrics_path: /metrics
                    static_configs:
                      - targets: [%s]
                """.formatted(targets));
        int port = Ports.free();
        Path log = directory.resolve("prometheus.log");
        Process process = new ProcessBuilder(binary.toString(), "--config.file=" + config, "--storage.tsdb.path=" + directory.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LivePrometheus prometheus = new LivePrometheus(process, directory, "http://127.0.0.1:" + port);
        try {
            long deadline = System.nanoTime() + START.toNanos();
            while (!prometheus.scrapes(servers.size())) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("prometheus exited with " + process.exitValue() + ": " + tail(log));
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("prometheus did not scrape " + servers + " within " + START.toSeconds() + " s: "
                            + tail(log));
                }
                Waits.sleep(250);
            }
        } catch (RuntimeException failed) {
            prometheus.close();
            throw failed;
        }
        return prometheus;
    }

    /** Whether every one of the {@code servers} targets was scraped and is up. */
    private boolean scrapes(int servers) {
        try {
            JsonArray up = query("up", null);
            return up.size() == servers && up.stream().map(JsonObject.class::cast)
                    .allMatch(series -> series.getJsonArray("value").getString(1).equals("1"));
        } catch (UncheckedIOException | IllegalStateException notYet) {
            return false;
        }
    }

    public String url() {
        return url;
    }

    /**
     * The instant vector {@code promql} evaluates to at {@code at} (now when {@code null}): each
     * element a {@code {"metric": {labels}, "value": [time, "value"]}}.
     *
     * @throws IllegalStateException when Prometheus refuses the query (its message)
     */
    public JsonArray query(String promql, Instant at) {
        String query = "/api/v1/query?query=" + encode(promql) + (at == null ? "" : "&time=" + at.getEpochSecond() + "."
                + String.format(Locale.ROOT, "%03d", at.getNano() / 1_000_000));
        JsonObject data = get(query);
        String type = data.getString("resultType");
        if (!type.equals("vector")) {
            throw new IllegalStateException("not an instant vector but a " + type + ": " + promql);
        }
        return data.getJsonArray("result");
    }

    /** The values of {@code label} among the series {@code match} selects. */
    public List<String> labelValues(String label, String match) {
        JsonObject answer = answer("/api/v1/label/" + label + "/values?match[]=" + encode(match));
        return answer.getJsonArray("data").getValuesAs(jakarta.json.JsonString.class).stream().map(jakarta.json.JsonString::getString).toList();
    }

    private JsonObject get(String path) {
        return answer(path).getJsonObject("data");
    }

    private JsonObject answer(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(ANSWER).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonObject answer;
            try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
                answer = reader.readObject();
            }
            if (!"success".equals(answer.getString("status", ""))) {
                throw new IllegalStateException("Prometheus answered " + response.statusCode() + " to " + path + ": "
                        + answer.getString("errorType", "") + ": " + answer.getString("error", response.body()));
            }
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException("Prometheus at " + url + " did not answer " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted asking Prometheus", e);
        } catch (jakarta.json.JsonException e) {
            throw new IllegalStateException("Prometheus answered " + path + " with no JSON object", e);
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(10));
        Directories.deleteQuietly(directory.resolve("data"));
    }
}
