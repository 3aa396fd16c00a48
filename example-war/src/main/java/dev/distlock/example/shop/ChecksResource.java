package dev.distlock.example.shop;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /api/checks/…}: the end-to-end tests' questions about the server with distlock
 * deployed ({@link TransactionChecks}), as {@link TickResource} answers theirs about the tick.
 */
@Path("checks")
@RequestScoped
@Produces(MediaType.TEXT_PLAIN)
public class ChecksResource {

    @Inject
    TransactionChecks checks;
    @Inject
    VirtualThreadChecks virtual;

    /** One call on the virtual-thread executor, locked or not: {@code virtual|platform <entered> <left>}. */
    @POST
    @Path("virtual/{locking}/{key}")
    public String virtual(@PathParam("locking") String locking, @PathParam("key") String key) throws Exception {
        java.util.concurrent.CompletableFuture<String> call = switch (locking) {
            case "locked" -> virtual.locked(key);
            case "unlocked" -> virtual.unlocked(key);
            default -> throw new jakarta.ws.rs.NotFoundException("no check " + locking);
        };
        return call.get(60, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** One call of the retry storm, locked and retried or neither: {@code virtual|platform <entered> <left>}. */
    @POST
    @Path("retried/{locking}/{key}")
    public String retried(@PathParam("locking") String locking, @PathParam("key") String key) {
        return switch (locking) {
            case "locked" -> checks.retriedRegion(key);
            case "unlocked" -> checks.unlockedRegion(key);
            default -> throw new jakarta.ws.rs.NotFoundException("no check " + locking);
        };
    }

    /**
     * One call of Fault Tolerance's {@code @Asynchronous} on a locked method whose stage completes
     * after the method returned, or its unlocked twin: {@code platform <entered> <left>}.
     */
    @POST
    @Path("ft-asynchronous/{locking}/{key}")
    public String ftAsynchronous(@PathParam("locking") String locking, @PathParam("key") String key) throws Exception {
        java.util.concurrent.CompletionStage<String> call = switch (locking) {
            case "locked" -> checks.laterRegion(key);
            case "unlocked" -> checks.laterRegionUnlocked(key);
            default -> throw new jakarta.ws.rs.NotFoundException("no check " + locking);
        };
        return call.toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
    }

    @POST
    @Path("stereotype")
    public String stereotype() {
        return checks.stereotypedInTransaction() ? "in a transaction" : "no transaction";
    }

    @POST
    @Path("asynchronous/{key}")
    public String asynchronous(@PathParam("key") String key) throws Exception {
        return checks.laterCallerOnTheThread(key);
    }

    @POST
    @Path("hold/{key}/{millis}")
    public String hold(@PathParam("key") String key, @PathParam("millis") long millis) throws InterruptedException {
        return checks.hold(key, millis);
    }

    /** {@code served} once it has the key, {@code busy} from the fallback, {@code timed out}, {@code turned away} by the bulkhead,
     * {@code unavailable} with the lock store down, {@code open} from the circuit breaker. */
    @POST
    @Path("fault-tolerance/{check}/{key}")
    public String faultTolerance(@PathParam("check") String check, @PathParam("key") String key) {
        try {
            return switch (check) {
                case "retried" -> checks.retried(key);
                case "or-busy" -> checks.orBusy(key);
                case "timed-wait" -> checks.waitAtMost300Ms(key);
                case "one-at-a-time" -> checks.oneAtATime(key);
                case "guarded" -> checks.guarded(key);
                default -> throw new jakarta.ws.rs.NotFoundException("no check " + check);
            };
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException timedOut) {
            return "timed out";
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException full) {
            return "turned away";
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException open) {
            return "open";
        } catch (dev.distlock.LockServiceUnavailableException down) {
            return "unavailable";
        }
    }
}
