package dev.distlock.example.shop;

import dev.distlock.CombinedCallFailedException;
import dev.distlock.DistlockException;
import dev.distlock.LockLostException;
import dev.distlock.LockTimeoutException;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Every failure becomes a problem body: bad input a 4xx, a lock that cannot be had or a Redis
 * that does not answer a 503 with {@code Retry-After}, anything else a 500 that is logged.
 */
final class ProblemMappers {

    /** Seconds a client should wait before retrying after a 503. */
    static final int RETRY_AFTER_SECONDS = 1;

    private static final System.Logger LOG = System.getLogger(ProblemMappers.class.getName());

    private ProblemMappers() {
    }

    @Provider
    public static class ShopExceptions implements ExceptionMapper<ShopException> {
        @Override
        public Response toResponse(ShopException e) {
            Response.ResponseBuilder response = Problem.of(e.status(), e.title(), e.getMessage()).response();
            return (e.status() == 503 ? response.header("Retry-After", RETRY_AFTER_SECONDS) : response).build();
        }
    }

    /** {@code LockTimeoutException}, {@code LockServiceUnavailableException}, {@code IdGenerationException}: try again later. */
    @Provider
    public static class LockProblems implements ExceptionMapper<DistlockException> {
        @Override
        public Response toResponse(DistlockException e) {
            if (e instanceof CombinedCallFailedException batch && batch.getCause() instanceof LockLostException lost && lost.rolledBack()) {
                // The order's batch lost its lock before the commit: distlock rolled the whole batch back.
                LOG.log(System.Logger.Level.WARNING, "Answering 503, a batch's lock lost before the commit: " + e.getMessage());
                return lockLost();
            }
            if (e instanceof LockLostException lost && lost.rolledBack()) {
                // The lock was gone before the order's commit: distlock rolled it back.
                LOG.log(System.Logger.Level.WARNING, "Answering 503, lock lost before the commit: " + e.getMessage());
                return lockLost();
            }
            if (e instanceof LockLostException) {
                // The method ran and its transaction committed, but not necessarily alone.
                LOG.log(System.Logger.Level.ERROR, "Lock lost while serving a request", e);
                return Problem.of(500, "Lock lost", "the request ran, but its lock expired before it finished; check the result")
                        .response().build();
            }
            // The message names Redis keys and addresses: for the log, not for the client.
            LOG.log(System.Logger.Level.WARNING, "Answering 503: " + e.getMessage());
            String detail = e instanceof LockTimeoutException
                    ? "too many orders for this SKU at once; nothing was ordered"
                    : "the shop cannot take orders at the moment; nothing was ordered";
            return Problem.of(503, "Try again shortly", detail).response()
                    .header("Retry-After", RETRY_AFTER_SECONDS).build();
        }
    }

    private static Response lockLost() {
        return Problem.of(503, "Lock lost", "the lock on the SKU was lost while the order was placed; nothing was written, try again")
                .response().header("Retry-After", RETRY_AFTER_SECONDS).build();
    }

    /** JAX-RS's own errors (unknown path, wrong method, wrong media type, ...) keep their status. */
    @Provider
    public static class WebApplicationExceptions implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response original = e.getResponse();
            Response.StatusType status = original.getStatusInfo();
            if (status.getStatusCode() >= 500) {
                LOG.log(System.Logger.Level.ERROR, "Request failed", e);
            }
            Response.ResponseBuilder response = Problem.of(status.getStatusCode(), status.getReasonPhrase(), detail(original)).response();
            original.getHeaders().forEach((name, values) -> {
                if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                    values.forEach(value -> response.header(name, value));
                }
            });
            return response.build();
        }
    }

    /** JAX-RS says only "HTTP 415 Unsupported Media Type"; say what to do instead. */
    private static String detail(Response response) {
        return switch (response.getStatus()) {
            case 400 -> "the body is missing or is not the JSON expected";
            case 404 -> "there is nothing at this path; the API is /api/orders and /api/inventory";
            case 405 -> "this path does not take that method; it takes " + response.getAllowedMethods();
            case 406 -> "the API answers application/json only";
            case 415 -> "send the body as application/json";
            default -> response.getStatusInfo().getReasonPhrase();
        };
    }

    /** A body that is not JSON, or not the JSON expected (a text where a number belongs). */
    @Provider
    public static class UnreadableJson implements ExceptionMapper<JsonbException> {
        @Override
        public Response toResponse(JsonbException e) {
            return Problem.of(400, "Invalid request", "the body is not the JSON expected: " + rootMessage(e)).response().build();
        }
    }

    @Provider
    public static class UnreadableBody implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            return Problem.of(400, "Invalid request", "the body could not be read: " + rootMessage(e)).response().build();
        }
    }

    @Provider
    public static class Unexpected implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable e) {
            LOG.log(System.Logger.Level.ERROR, "Request failed", e);
            // The type, not the message (which may quote data): enough to tell one failure from another.
            return Problem.of(500, "Internal error", "the request failed (" + e.getClass().getName()
                    + "); the server log has the details").response().build();
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        if (message == null) {
            return root.getClass().getSimpleName();
        }
        // Parser messages can quote the body back; keep the answer short.
        return message.length() > 200 ? message.substring(0, 200) + "..." : message;
    }
}
