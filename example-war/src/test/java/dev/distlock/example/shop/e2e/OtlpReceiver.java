package dev.distlock.example.shop.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * Where the servers send their spans: an OTLP receiver (protobuf over HTTP, {@code /v1/traces}) in
 * the test's JVM, for a runtime whose OpenTelemetry has no exporter that writes to its log (Payara
 * ships only OTLP's). {@link #serverSettings()} tells a server to trace only what its caller sampled
 * and to send the spans here within half a second.
 */
final class OtlpReceiver implements AutoCloseable {

    /** One span as received: ids in hex, the kind without its {@code SPAN_KIND_} prefix, attributes as Java values. */
    record ReceivedSpan(String name, String traceId, String spanId, String parentSpanId, String kind, String scope,
                        Map<String, Object> attributes) {

        /** As OpenTelemetry's logging exporter writes a span, so that a failure reads like the other runtimes' checks. */
        @Override
        public String toString() {
            return "'" + name + "' : " + traceId + " " + spanId + " (parent " + parentSpanId + ") " + kind + " [tracer: " + scope + "] "
                    + attributes;
        }
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/v1/traces", receiver::receive);
        server.start();
        return receiver;
    }

    /**
     * MicroProfile Telemetry on, spans only of requests whose caller sampled their trace (a
     * {@code traceparent} with the sampled flag), sent here in OTLP within half a second; no metrics
     * or logs exported.
     */
    Map<String, String> serverSettings() {
        return Map.of(
                "otel.sdk.disabled", "false",
                "otel.traces.exporter", "otlp",
                "otel.exporter.otlp.traces.protocol", "http/protobuf",
                "otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces",
                "otel.traces.sampler", "parentbased_always_off",
                "otel.bsp.schedule.delay", "500",
                "otel.metrics.exporter", "none",
                "otel.logs.exporter", "none");
    }

    /** Every span received so far, in the order received. */
    List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** The first span received that is {@code wanted}, waiting for it up to {@code within}. */
    ReceivedSpan await(Predicate<ReceivedSpan> wanted, String what, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            for (ReceivedSpan span : spans) {
                if (wanted.test(span)) {
                    return span;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no span " + what + " received within " + within + ": " + spans);
            }
            Thread.sleep(100);
        }
    }

    /** A new trace id, as a caller that traces would make one. */
    static String newTraceId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "%016x%016x".formatted(random.nextLong() | 1, random.nextLong());
    }

    /** The W3C trace context header of a call on the sampled trace {@code traceId}, from a span of the caller's. */
    static String traceparent(String traceId) {
        return "00-" + traceId + "-" + "%016x".formatted(ThreadLocalRandom.current().nextLong() | 1) + "-01";
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    for (Span span : scope.getSpansList()) {
                        spans.add(received(scope.getScope().getName(), span));
                    }
                }
            }
            // An empty ExportTraceServiceResponse: every span accepted.
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private static ReceivedSpan received(String scope, Span span) {
        HexFormat hex = HexFormat.of();
        Map<String, Object> attributes = new LinkedHashMap<>();
        for (KeyValue attribute : span.getAttributesList()) {
            attributes.put(attribute.getKey(), value(attribute.getValue()));
        }
        return new ReceivedSpan(span.getName(), hex.formatHex(span.getTraceId().toByteArray()), hex.formatHex(span.getSpanId().toByteArray()),
                hex.formatHex(span.getParentSpanId().toByteArray()), span.getKind().name().replace("SPAN_KIND_", ""), scope, attributes);
    }

    private static Object value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case BOOL_VALUE -> value.getBoolValue();
            case INT_VALUE -> value.getIntValue();
            case DOUBLE_VALUE -> value.getDoubleValue();
            default -> value.toString().strip();
        };
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
