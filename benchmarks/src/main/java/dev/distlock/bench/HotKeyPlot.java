package dev.distlock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws the hot-key results as an SVG line chart: critical sections per second against threads
 * per JVM (log scale), raw Redisson next to distlock. Plain SVG text, so the chart can be
 * committed next to the tables and shown by any Markdown viewer.
 */
final class HotKeyPlot {

    private static final int WIDTH = 640;
    private static final int HEIGHT = 400;
    private static final int LEFT = 80;
    private static final int RIGHT = 150;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;

    private HotKeyPlot() {
    }

    /** Writes the chart of {@code rows} (raw and distlock rows, any order) to {@code file}. */
    static void write(List<HotKeyDriver.Row> rows, String title, Path file) throws IOException {
        List<HotKeyDriver.Row> raw = new ArrayList<>();
        List<HotKeyDriver.Row> distlock = new ArrayList<>();
        for (HotKeyDriver.Row row : rows) {
            (row.impl().equals("raw") ? raw : distlock).add(row);
        }
        raw.sort((a, b) -> Integer.compare(a.threads(), b.threads()));
        distlock.sort((a, b) -> Integer.compare(a.threads(), b.threads()));
        int minThreads = rows.stream().mapToInt(HotKeyDriver.Row::threads).min().orElse(1);
        int maxThreads = rows.stream().mapToInt(HotKeyDriver.Row::threads).max().orElse(1);
        double maxOps = rows.stream().mapToDouble(HotKeyDriver.Row::throughput).max().orElse(1);
        double yTop = niceCeiling(maxOps);

        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
                LEFT, escape(title)));
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        // Y grid and labels.
        for (int i = 0; i <= 5; i++) {
            double value = yTop * i / 5;
            double y = TOP + plotHeight - plotHeight * i / 5.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT, y, LEFT + plotWidth, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n",
                    LEFT - 6, y + 4, value));
        }
        // X ticks at the measured thread counts.
        for (HotKeyDriver.Row row : raw.isEmpty() ? distlock : raw) {
            double x = x(row.threads(), minThreads, maxThreads, plotWidth);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x, TOP, x, TOP + plotHeight));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
                    x, TOP + plotHeight + 18, row.threads()));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">threads per JVM (log scale)</text>%n",
                LEFT + plotWidth / 2, HEIGHT - 16));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 18 %d)\">critical sections / s</text>%n",
                TOP + plotHeight / 2, TOP + plotHeight / 2));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>%n",
                LEFT, TOP, plotWidth, plotHeight));
        series(svg, raw, "#d62728", "raw Redisson", 0, minThreads, maxThreads, yTop, plotWidth, plotHeight);
        series(svg, distlock, "#1f77b4", "distlock", 1, minThreads, maxThreads, yTop, plotWidth, plotHeight);
        svg.append("</svg>\n");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, svg.toString());
    }

    private static void series(StringBuilder svg, List<HotKeyDriver.Row> rows, String color, String label, int index,
                               int minThreads, int maxThreads, double yTop, int plotWidth, int plotHeight) {
        if (rows.isEmpty()) {
            return;
        }
        StringBuilder points = new StringBuilder();
        for (HotKeyDriver.Row row : rows) {
            double x = x(row.threads(), minThreads, maxThreads, plotWidth);
            double y = TOP + plotHeight - plotHeight * row.throughput() / yTop;
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>%n", x, y, color));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" text-anchor=\"middle\">%,.0f</text>%n",
                    x, y - 8, color, row.throughput()));
        }
        svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                points.toString().strip(), color));
        int legendY = TOP + 20 + index * 22;
        int legendX = LEFT + plotWidth + 16;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                legendX, legendY - 4, legendX + 24, legendY - 4, color));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", legendX + 30, legendY, escape(label)));
    }

    private static double x(int threads, int minThreads, int maxThreads, int plotWidth) {
        if (maxThreads == minThreads) {
            return LEFT + plotWidth / 2.0;
        }
        double span = Math.log(maxThreads) - Math.log(minThreads);
        return LEFT + 20 + (plotWidth - 40) * (Math.log(threads) - Math.log(minThreads)) / span;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code value}. */
    private static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(value, 1))));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
