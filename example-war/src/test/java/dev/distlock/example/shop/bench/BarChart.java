package dev.distlock.example.shop.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Orders per second as a bar chart in plain SVG: one group per variant, a bar for one server and a
 * bar for two, each labelled with its figure. Text, so it sits next to the markdown and any viewer
 * shows it.
 */
final class BarChart {

    private static final int GROUP_WIDTH = 130;
    private static final int BAR_WIDTH = 44;
    private static final int PLOT_HEIGHT = 260;
    private static final int LEFT = 70;
    private static final int TOP = 60;
    private static final int BOTTOM = 50;
    private static final int GRID_LINES = 5;
    /** Room for the title and the legend. */
    private static final int MIN_WIDTH = 420;
    private static final String[] COLORS = {"#9ecae1", "#2171b5"};

    private BarChart() {
    }

    static String svg(String title, List<BenchRow> rows) {
        List<String> variants = rows.stream().map(BenchRow::variant).distinct().toList();
        double step = tickStep(rows.stream().mapToDouble(BenchRow::ordersPerSecond).max().orElse(0));
        double top = step * GRID_LINES;
        int width = Math.max(MIN_WIDTH, LEFT + variants.size() * GROUP_WIDTH + 20);
        int height = TOP + PLOT_HEIGHT + BOTTOM;
        int baseline = TOP + PLOT_HEIGHT;

        List<String> svg = new ArrayList<>();
        svg.add(format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">", width, height, width, height));
        svg.add(format("<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>", width, height));
        svg.add(format("<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>", LEFT, escape(title)));
        for (int line = 0; line <= GRID_LINES; line++) {
            double y = baseline - PLOT_HEIGHT * line / (double) GRID_LINES;
            svg.add(format("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>",
                    LEFT, y, width - 20, y, line == 0 ? "#555" : "#e0e0e0"));
            svg.add(format("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>", LEFT - 6, y + 4, step * line));
        }
        svg.add(format("<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">orders / s</text>",
                TOP + PLOT_HEIGHT / 2, TOP + PLOT_HEIGHT / 2));
        for (int group = 0; group < variants.size(); group++) {
            int groupLeft = LEFT + group * GROUP_WIDTH;
            for (BenchRow row : rows) {
                if (!row.variant().equals(variants.get(group))) {
                    continue;
                }
                double x = groupLeft + (GROUP_WIDTH - 2 * BAR_WIDTH) / 2.0 + (row.servers() - 1) * BAR_WIDTH;
                double barHeight = top == 0 ? 0 : PLOT_HEIGHT * row.ordersPerSecond() / top;
                svg.add(format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>",
                        x, baseline - barHeight, BAR_WIDTH - 4, barHeight, COLORS[Math.min(row.servers(), 2) - 1]));
                svg.add(format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%,.0f</text>",
                        x + (BAR_WIDTH - 4) / 2.0, baseline - barHeight - 4, row.ordersPerSecond()));
            }
            svg.add(format("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    groupLeft + GROUP_WIDTH / 2, baseline + 18, escape(variants.get(group))));
        }
        for (int servers = 1; servers <= 2; servers++) {
            int x = LEFT + (servers - 1) * 110;
            svg.add(format("<rect x=\"%d\" y=\"34\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, COLORS[servers - 1]));
            svg.add(format("<text x=\"%d\" y=\"44\">%s</text>", x + 18, servers == 1 ? "one server" : "two servers"));
        }
        svg.add("</svg>");
        return String.join("\n", svg) + "\n";
    }

    /**
     * The smallest grid step of 1, 2, 2.5 or 5 times a power of ten such that {@link #GRID_LINES}
     * steps reach {@code max} (1,058 orders/s: steps of 250, not of 500 with the bars in the lower half);
     * 2.5 only where the step is a whole number, as the labels are.
     */
    static double tickStep(double max) {
        if (max <= 0) {
            return 1;
        }
        double rough = max / GRID_LINES;
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / power;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 && power >= 10 ? 2.5 : fraction <= 5 ? 5 : 10;
        return nice * power;
    }

    private static String format(String template, Object... values) {
        return String.format(Locale.ROOT, template, values);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
