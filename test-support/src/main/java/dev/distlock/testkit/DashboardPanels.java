package dev.distlock.testkit;

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
public final class DashboardPanels {

    /** The window {@code $__rate_interval} becomes: wide enough for a storm of a few seconds scraped every second. */
    public static final String RATE_WINDOW = "1m";

    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");

    /** One query of a panel: its PromQL as Grafana sends it for every server, and the labels its legend names. */
    public record Query(String expr, Set<String> legendLabels) {
    }

    /** One panel: its title and its queries, in the dashboard's order. */
    public record Panel(String title, List<Query> queries) {
    }

    /** What Prometheus answered to one query: the series, each as its labels and its value. */
    public record Answer(Query query, List<Series> series) {

        /** The series whose labels include every one the legend names. */
        public boolean labelled() {
            return !series.isEmpty() && series.stream().allMatch(one -> one.labels().keySet().containsAll(query.legendLabels()));
        }
    }

    /** One series of an answer. */
    public record Series(java.util.Map<String, String> labels, double value) {
    }

    private final List<Panel> panels;
    private final String instanceQuery;

    private DashboardPanels(List<Panel> panels, String instanceQuery) {
        this.panels = List.copyOf(panels);
        this.instanceQuery = instanceQuery;
    }

    public static DashboardPanels read(Path dashboard) throws IOException {
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

    public List<Panel> panels() {
        return panels;
    }

    /** {@code label_values(distlock_lock_wait_seconds_count, instance)}: the metric whose series list the servers. */
    public String instanceMetric() {
        Matcher call = Pattern.compile("label_values\\(\\s*([^,]+?)\\s*,\\s*instance\\s*\\)").matcher(instanceQuery);
        if (!call.matches()) {
            throw new IllegalStateException("the instance variable's query is not label_values(<metric>, instance): " + instanceQuery);
        }
        return call.group(1);
    }

    /** Every server ({@code $instance} with "All" chosen) and Grafana's rate window. */
    public static String grafanaToPromQl(String expr) {
        return expr.replace("instance=~\"$instance\"", "instance=~\".*\"").replace("$__rate_interval", RATE_WINDOW);
    }

    public static Set<String> legendLabels(String legend) {
        Set<String> labels = new LinkedHashSet<>();
        Matcher label = LEGEND_LABEL.matcher(legend);
        while (label.find()) {
            labels.add(label.group(1));
        }
        return labels;
    }

    /** Each query of {@code panel} as Prometheus answers it at {@code at}. */
    public static List<Answer> ask(LivePrometheus prometheus, Panel panel, Instant at) {
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
    public static String describe(Panel panel, List<Answer> answers) {
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

    /**
     * Every panel asked of {@code prometheus} at {@code at}, as Grafana asks it: the Server choice
     * lists exactly {@code servers} ({@code host:port} as scraped); each panel answers with series
     * that carry the labels its legend names, every value a number; locks taken per second show
     * exclusive locks; the timeout and lost-lock counters have a series for every mode. Prints each
     * panel's answers; returns the queries that answered, one per panel.
     */
    public static List<String> assertEveryPanelAnswers(LivePrometheus prometheus, DashboardPanels dashboard, List<String> servers, Instant at) {
        org.junit.jupiter.api.Assertions.assertEquals(new java.util.TreeSet<>(servers),
                new java.util.TreeSet<>(prometheus.labelValues("instance", dashboard.instanceMetric())), "the Server choice lists both servers");
        List<String> shown = new ArrayList<>();
        List<org.junit.jupiter.api.function.Executable> checks = new ArrayList<>();
        for (Panel panel : dashboard.panels()) {
            List<Answer> answers = ask(prometheus, panel, at);
            System.out.println("[dashboard] " + describe(panel, answers));
            java.util.Optional<Answer> answered = answers.stream().filter(Answer::labelled).findFirst();
            checks.add(() -> org.junit.jupiter.api.Assertions.assertTrue(answered.isPresent(),
                    () -> "no query of the panel answered with series labelled as its legend says: " + describe(panel, answers)));
            answered.ifPresent(answer -> {
                shown.add(answer.query().expr());
                checks.add(() -> org.junit.jupiter.api.Assertions.assertTrue(answer.series().stream().allMatch(series -> Double.isFinite(series.value())),
                        () -> panel.title() + ": a value that is no number: " + answer.series()));
            });
            if (panel.title().startsWith("Locks taken per second")) {
                checks.add(() -> org.junit.jupiter.api.Assertions.assertTrue(answers.get(0).series().stream()
                                .anyMatch(series -> "exclusive".equals(series.labels().get("mode")) && series.value() > 0),
                        () -> "exclusive locks, per second: " + answers.get(0).series()));
            }
            if (panel.title().startsWith("Timeouts") || panel.title().startsWith("Locks lost")) {
                checks.add(() -> org.junit.jupiter.api.Assertions.assertEquals(Set.of("exclusive", "read", "write"), answers.get(0).series().stream()
                                .map(series -> series.labels().get("mode")).collect(java.util.stream.Collectors.toSet()),
                        panel.title() + ": a series for every mode from the start, at zero until the first one"));
            }
        }
        org.junit.jupiter.api.Assertions.assertAll(checks);
        return shown;
    }
}
