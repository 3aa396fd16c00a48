package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.LivePrometheus;

import dev.distlock.testkit.Processes;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PNG of Prometheus' own graph page showing the dashboard's queries over a window, taken by a
 * headless Chromium: what the panels look like on a live scrape, without Grafana.
 */
final class GraphScreenshot {

    /** Why no picture was taken. */
    static final String MISSING = "needs Chromium on the PATH for the picture: apt-get install chromium (Debian), chromium-browser "
            + "(Ubuntu) or Google Chrome";

    private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome", "google-chrome-stable");
    private static final DateTimeFormatter END = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
    /** Height of one graph on Prometheus' page, its expression field and legend included. */
    private static final int PER_GRAPH = 520;
    private static final Duration RENDER = Duration.ofSeconds(90);

    private GraphScreenshot() {
    }

    static Optional<Path> chromium() {
        return LivePrometheus.onPath(NAMES);
    }

    /** The address of Prometheus' graph page with one graph per expression, over {@code range} ending at {@code end}. */
    static String graphPage(String prometheus, List<String> expressions, Duration range, Instant end) {
        StringBuilder url = new StringBuilder(prometheus).append("/graph?");
        for (int i = 0; i < expressions.size(); i++) {
            String graph = "g" + i + ".";
            url.append(i == 0 ? "" : "&").append(graph).append("expr=").append(encode(expressions.get(i)))
                    .append('&').append(graph).append("tab=0")
                    .append('&').append(graph).append("range_input=").append(range.toMinutes()).append('m')
                    .append('&').append(graph).append("end_input=").append(encode(END.format(end)))
                    .append('&').append(graph).append("step_input=1");
        }
        return url.toString();
    }

    /**
     * Renders {@code page} into {@code png}, tall enough for {@code graphs} graphs.
     *
     * @throws IllegalStateException when Chromium fails or writes no picture
     */
    static void take(Path chromium, String page, int graphs, Path png) throws IOException, InterruptedException {
        Files.createDirectories(png.getParent());
        Files.deleteIfExists(png);
        Path log = png.resolveSibling(png.getFileName() + ".log");
        Path profile = Files.createTempDirectory(png.getParent(), "chromium-profile");
        Process process = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--user-data-dir=" + profile, "--window-size=1280," + (140 + graphs * PER_GRAPH),
                "--virtual-time-budget=20000", "--screenshot=" + png, page)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(RENDER.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("Chromium did not render " + page + " within " + RENDER.toSeconds() + " s; see " + log);
            }
        } finally {
            Processes.stop(process, Duration.ofSeconds(5));
            dev.distlock.testkit.Directories.deleteQuietly(profile);
        }
        if (!Files.isRegularFile(png) || Files.size(png) == 0) {
            throw new IllegalStateException("Chromium exited with " + process.exitValue() + " and wrote no picture; see " + log);
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
