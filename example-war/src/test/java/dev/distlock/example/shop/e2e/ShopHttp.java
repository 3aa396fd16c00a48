package dev.distlock.example.shop.e2e;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The shop's API as the tests call it. */
final class ShopHttp implements AutoCloseable {

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(120);

    private final ExecutorService executor = Executors.newFixedThreadPool(8, runnable -> {
        Thread thread = new Thread(runnable, "shop-http");
        thread.setDaemon(true);
        return thread;
    });
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .executor(executor)
            .build();

    /** An answer: status, body and the headers the tests look at. */
    record Answer(int status, String body, String contentType, String retryAfter, String location) {

        JsonArray jsonArray() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.readArray();
            } catch (RuntimeException e) {
                throw new AssertionError("not a JSON array (status " + status + "): " + body, e);
            }
        }

        JsonObject json() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                JsonStructure structure = reader.read();
                return structure.asJsonObject();
            } catch (RuntimeException e) {
                throw new AssertionError("not a JSON object (status " + status + "): " + body, e);
            }
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + body;
        }
    }

    CompletableFuture<Answer> sendAsync(HttpRequest request) {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(ShopHttp::answer);
    }

    Answer send(HttpRequest request) {
        try {
            return answer(client.send(request, HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    Answer get(String url) {
        return send(request(url).GET().build());
    }

    Answer post(String url, String json) {
        return send(request(url).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    Answer put(String url, String json) {
        return send(request(url).header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    Answer delete(String url) {
        return send(request(url).DELETE().build());
    }

    static HttpRequest order(String baseUrl, String sku, int quantity) {
        return request(baseUrl + "/api/orders").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}")).build();
    }

    static HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT).header("Accept", "application/json");
    }

    /** Sets a SKU's stock through the API (the restock endpoint), creating it if needed. */
    void setStock(String baseUrl, String sku, int stock) {
        Answer answer = put(baseUrl + "/api/inventory/" + sku, "{\"stock\":" + stock + ",\"name\":\"" + sku + "\"}");
        if (answer.status() != 200) {
            throw new AssertionError("could not set the stock of " + sku + ": " + answer);
        }
    }

    /** Sets the stock and keeps it in {@code stripes} stripes from now on (1: unstriped). */
    void setStock(String baseUrl, String sku, int stock, int stripes) {
        Answer answer = put(baseUrl + "/api/inventory/" + sku, "{\"stock\":" + stock + ",\"stripes\":" + stripes + "}");
        if (answer.status() != 200) {
            throw new AssertionError("could not set the stock of " + sku + " in " + stripes + " stripes: " + answer);
        }
    }

    int stock(String baseUrl, String sku) {
        Answer answer = get(baseUrl + "/api/inventory/" + sku);
        if (answer.status() != 200) {
            throw new AssertionError("could not read the stock of " + sku + ": " + answer);
        }
        return answer.json().getInt("stock");
    }

    private static Answer answer(HttpResponse<String> response) {
        return new Answer(response.statusCode(), response.body(),
                response.headers().firstValue("Content-Type").orElse(""),
                response.headers().firstValue("Retry-After").orElse(null),
                response.headers().firstValue("Location").orElse(null));
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
