package dev.distlock.runtimes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.distlock.testkit.Ports;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableDoublePointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableGaugeData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableHistogramData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableHistogramPointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableLongPointData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableMetricData;
import io.opentelemetry.sdk.metrics.internal.data.ImmutableSumData;
import io.opentelemetry.sdk.resources.Resource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;

/**
 * What an OpenTelemetry Collector with a Prometheus exporter is to a server in production, for one
 * server under test: it receives the server's OTLP metrics (protobuf over HTTP, {@code /v1/metrics},
 * cumulative) and shows the last of each of distlock's instruments (the {@code dev.distlock} meter)
 * on {@code /metrics} through OpenTelemetry's own Prometheus exporter, which names them as an
 * operator's Prometheus sees them ({@code distlock.lock.wait} in seconds becomes
 * {@code distlock_lock_wait_seconds_bucket}).
 */
final class OtlpMetricsForPrometheus implements AutoCloseable {

    private static final String SCOPE = "dev.distlock";

    private final HttpServer receiver;
    private final PrometheusHttpServer exporter;
    private final SdkMeterProvider meters;
    private final int exporterPort;
    /** The last export of each instrument, by name. */
    private final Map<String, MetricData> latest = new ConcurrentHashMap<>();

    private OtlpMetricsForPrometheus() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/v1/metrics", this::receive);
        receiver.start();
        exporterPort = Ports.free();
        exporter = PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(exporterPort).build();
        meters = SdkMeterProvider.builder().registerMetricReader(exporter).registerMetricProducer(this::produce).build();
    }

    static OtlpMetricsForPrometheus start() throws IOException {
        return new OtlpMetricsForPrometheus();
    }

    /** Where the server sends its metrics: {@code otel.exporter.otlp.endpoint}, to which the exporter adds {@code /v1/metrics}. */
    String endpoint() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort();
    }

    /** What Prometheus scrapes ({@code /metrics} there). */
    String scrapeUrl() {
        return "http://127.0.0.1:" + exporterPort;
    }

    private Collection<MetricData> produce(Resource resource) {
        return List.copyOf(latest.values());
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportMetricsServiceRequest request = ExportMetricsServiceRequest.parseFrom(body);
            for (ResourceMetrics resourceMetrics : request.getResourceMetricsList()) {
                Resource resource = Resource.create(attributes(resourceMetrics.getResource().getAttributesList()));
                for (ScopeMetrics scopeMetrics : resourceMetrics.getScopeMetricsList()) {
                    if (!scopeMetrics.getScope().getName().equals(SCOPE)) {
                        continue;
                    }
                    InstrumentationScopeInfo scope = InstrumentationScopeInfo.create(SCOPE);
                    for (Metric metric : scopeMetrics.getMetricsList()) {
                        MetricData data = convert(resource, scope, metric);
                        if (data != null) {
                            latest.put(metric.getName(), data);
                        }
                    }
                }
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        } catch (RuntimeException | IOException e) {
            exchange.sendResponseHeaders(400, -1);
        }
    }

    /** A histogram, a sum or a gauge as the SDK would have collected it; null for kinds distlock does not use. */
    private static MetricData convert(Resource resource, InstrumentationScopeInfo scope, Metric metric) {
        String name = metric.getName();
        String description = metric.getDescription();
        String unit = metric.getUnit();
        switch (metric.getDataCase()) {
            case HISTOGRAM -> {
                List<HistogramPointData> points = metric.getHistogram().getDataPointsList().stream().map(OtlpMetricsForPrometheus::histogramPoint).toList();
                return ImmutableMetricData.createDoubleHistogram(resource, scope, name, description, unit,
                        ImmutableHistogramData.create(AggregationTemporality.CUMULATIVE, points));
            }
            case SUM -> {
                boolean monotonic = metric.getSum().getIsMonotonic();
                List<NumberDataPoint> points = metric.getSum().getDataPointsList();
                if (!points.isEmpty() && points.get(0).getValueCase() == NumberDataPoint.ValueCase.AS_DOUBLE) {
                    return ImmutableMetricData.createDoubleSum(resource, scope, name, description, unit,
                            ImmutableSumData.create(monotonic, AggregationTemporality.CUMULATIVE, points.stream().map(OtlpMetricsForPrometheus::doublePoint).toList()));
                }
                return ImmutableMetricData.createLongSum(resource, scope, name, description, unit,
                        ImmutableSumData.create(monotonic, AggregationTemporality.CUMULATIVE, points.stream().map(OtlpMetricsForPrometheus::longPoint).toList()));
            }
            case GAUGE -> {
                List<NumberDataPoint> points = metric.getGauge().getDataPointsList();
                if (!points.isEmpty() && points.get(0).getValueCase() == NumberDataPoint.ValueCase.AS_DOUBLE) {
                    return ImmutableMetricData.createDoubleGauge(resource, scope, name, description, unit,
                            ImmutableGaugeData.create(points.stream().map(OtlpMetricsForPrometheus::doublePoint).toList()));
                }
                return ImmutableMetricData.createLongGauge(resource, scope, name, description, unit,
                        ImmutableGaugeData.create(points.stream().map(OtlpMetricsForPrometheus::longPoint).toList()));
            }
            default -> {
                return null;
            }
        }
    }

    private static HistogramPointData histogramPoint(HistogramDataPoint point) {
        return ImmutableHistogramPointData.create(point.getStartTimeUnixNano(), point.getTimeUnixNano(), attributes(point.getAttributesList()),
                point.getSum(), point.hasMin(), point.getMin(), point.hasMax(), point.getMax(), point.getExplicitBoundsList(),
                point.getBucketCountsList());
    }

    private static LongPointData longPoint(NumberDataPoint point) {
        return ImmutableLongPointData.create(point.getStartTimeUnixNano(), point.getTimeUnixNano(),
                attributes(point.getAttributesList()), point.getAsInt());
    }

    private static DoublePointData doublePoint(NumberDataPoint point) {
        return ImmutableDoublePointData.create(point.getStartTimeUnixNano(), point.getTimeUnixNano(),
                attributes(point.getAttributesList()), point.getAsDouble());
    }

    private static Attributes attributes(List<KeyValue> keyValues) {
        AttributesBuilder builder = Attributes.builder();
        for (KeyValue keyValue : keyValues) {
            AnyValue value = keyValue.getValue();
            switch (value.getValueCase()) {
                case STRING_VALUE -> builder.put(keyValue.getKey(), value.getStringValue());
                case INT_VALUE -> builder.put(keyValue.getKey(), value.getIntValue());
                case DOUBLE_VALUE -> builder.put(keyValue.getKey(), value.getDoubleValue());
                case BOOL_VALUE -> builder.put(keyValue.getKey(), value.getBoolValue());
                default -> builder.put(keyValue.getKey(), value.toString());
            }
        }
        return builder.build();
    }

    @Override
    public void close() {
        meters.close();
        receiver.stop(0);
    }
}
