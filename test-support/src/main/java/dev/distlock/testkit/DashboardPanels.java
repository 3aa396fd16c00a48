package dev.distlock.example.shop.e2e;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The panels of distlock's Grafana dashboard ({@code docs/grafana/distlock-dashboard.json}) and
 * their queries, made into plain PromQL the way Grafana makes them ({@code $instance} for every
 * server, {@code $__rate_interval} for a window), and what a live Prometheus answers to each.
 */
final class DashboardPanels {

    /** The window {@code $__rate_interval} becomes: wide enough for a storm of a few seconds scraped every second. */
    static final String RATE_WINDOW = "1m";

    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");

    /** One query of a panel: its PromQL as Grafana sends it for every server, and the labels its legend names. */
    record Query(String expr, Set<String> legendLabels) {
    }

    /** One panel: its title and its queries, in the dashboard's order. */
    record Panel(String title, List<Query> queries) {
    }

    /** What Prometheus answered to one query: the series, each as its labels and its value. */
    record Answer(Query query, List<Series> series) {

        /** The series whose labels include every one the legend names. */
        boolean labelled() {
            return !series.isEmpty() && series.stream().allMatch(one -> one.labels().keySet().containsAll(query.legendLabels()));
        }
    }

    /** One series of an answer. */
    record Series(java.util.Map<String, String> labels, double value) {
    }

    private final List<Panel> panels;
    private final String instanceQuery;

    private DashboardPanels(List<Panel> panels, String instanceQuery) {
        this.panels = List.copyOf(panels);
        this.instanceQuery = instanceQuery;
    }

    static DashboardPanels read(Path dashboard) throws IOException {
        JsonObject json;
        try (Reader file = Files.newBufferedReader(dashboard); JsonReader reader = Json.createReader(file)) {
            json = reader.readObject();
        }
        List<Panel> panels = new ArrayList<>();
        for (JsonValue value : json.getJsonArray("panels")) {
            JsonObject panel = value.asJsonObject();
            List<Query> queries = new ArrayList<>();
            for (JsonValue target : panel.getJsonArray("targets")) {
                queries.add(new Query(grafanaToPromQl(target.asJsonObject().getString("expr")),
                        legendLabels(target.asJsonObject().getString("legendFormat", ""))));
            }
            panels.add(new Panel(panel.getString("title"), queries));
        }
        String instances = json.getJsonObject("templating").getJsonArray("list").stream().map(JsonValue::asJsonObject)
                .filter(variable -> variable.getString("name").equals("instance")).findFirst()
                .orElseThrow(() -> new IllegalStateException(dashboard + " has no instance variable")).getString("query");
        return new DashboardPanels(panels, instances);
    }

    List<Panel> panels() {
        return panels;
    }

    /** {@code label_values(distlock_lock_wait_seconds_count, instance)}: the metric whose series list the servers. */
    String instanceMetric() {
        Matcher call = Pattern.compile("label_values\\(\\s*([^,]+?)\\s*,\\s*instance\\s*\\)").matcher(instanceQuery);
        if (!call.matches()) {
            throw new IllegalStateException("the instance variable's query is not label_values(<metric>, instance): " + instanceQuery);
        }
        return call.group(1);
    }

    /** Every server ({@code $instance} with "All" chosen) and Grafana's rate window. */
    static String grafanaToPromQl(String expr) {
        return expr.replace("instance=~\"$instance\"", "instance=~\".*\"").replace("$__rate_interval", RATE_WINDOW);
    }

    static Set<String> legendLabels(String legend) {
        Set<String> labels = new LinkedHashSet<>();
        Matcher label = LEGEND_LABEL.matcher(legend);
        while (label.find()) {
            labels.add(label.group(1));
        }
        return labels;
    }

    /** Each query of {@code panel} as Prometheus answers it at {@code at}. */
    static List<Answer> ask(LivePrometheus prometheus, Panel panel, Instant at) {
        List<Answer> answers = new ArrayList<>();
        for (Query query : panel.queries()) {
            JsonArray result = prometheus.query(query.expr(), at);
            List<Series> series = new ArrayList<>();
            for (JsonValue element : result) {
                JsonObject one = element.asJsonObject();
                java.util.Map<String, String> labels = new java.util.TreeMap<>();
                one.getJsonObject("metric").forEach((name, value) -> labels.put(name, ((jakarta.json.JsonString) value).getString()));
                series.add(new Series(labels, Double.parseDouble(one.getJsonArray("value").getString(1))));
            }
            answers.add(new Answer(query, series));
        }
        return answers;
    }

    /** One line per query for the report: the series that answered, with their labels and values. */
    static String describe(Panel panel, List<Answer> answers) {
        StringBuilder text = new StringBuilder(panel.title());
        for (Answer answer : answers) {
            text.append("\n    ").append(answer.query().expr()).append(" -> ");
            if (answer.series().isEmpty()) {
                text.append("no series");
            }
            for (Series series : answer.series()) {
                text.append(String.format(Locale.ROOT, "%s = %.4g; ", series.labels(), series.value()));
            }
        }
        return text.toString();
    }
}
