package dev.distlock.runtimes.shapes;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionalException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The transaction shapes, one call each: {@code ok}, or {@code waited} when a call waited for a lock
 * its own transaction held until its wait ran out. Overlaps are counted in Redis ({@link Regions}).
 */
@Path("/shapes")
@Produces(MediaType.TEXT_PLAIN)
public class ShapesResource {

    @Inject
    Orders orders;
    @Inject
    Reservations reservations;
    @Inject
    Stereotyped stereotyped;
    @Inject
    Later later;
    @Inject
    Retried retried;

    @POST
    @Path("{shape}/{key}")
    public String run(@PathParam("shape") String shape, @PathParam("key") String key) throws Exception {
        try {
            switch (shape) {
                case "stereotype" -> {
                    return stereotyped.inTransaction() ? "in a transaction" : "no transaction";
                }
                case "asynchronous" -> {
                    return laterCaller(key, done -> later.reserveLater(key, done), () -> false);
                }
                case "asynchronous-callee" -> {
                    AtomicBoolean completed = new AtomicBoolean();
                    return laterCaller(key, done -> later.takeThenFinishLater(key, done, completed), completed::get);
                }
                case "plain-bean-inside" -> orders.placeThenConfirm(key);
                case "plain-bean-inside-unlocked" -> orders.placeThenConfirmUnlocked(key);
                case "requires-new-inside" -> reservations.reserveThenPay(key);
                case "requires-new-inside-unlocked" -> reservations.reserveThenPayUnlocked(key);
                case "retried" -> retried.book(key);
                case "retried-unlocked" -> retried.bookUnlocked(key);
                case "timed-wait" -> {
                    return retried.waitAtMost300Ms(key);
                }
                case "or-busy" -> {
                    return retried.orBusy(key);
                }
                case "one-at-a-time" -> {
                    return retried.oneAtATime(key);
                }
                case "ft-asynchronous" -> {
                    return retried.later(key).toCompletableFuture().get(60, TimeUnit.SECONDS);
                }
                case "ft-asynchronous-unlocked" -> {
                    return retried.laterUnlocked(key).toCompletableFuture().get(60, TimeUnit.SECONDS);
                }
                case "breaker" -> {
                    return retried.guarded(key);
                }
                case "doomed" -> reservations.failThenRecord(key);
                case "not-supported-chain" -> reservations.takeThenSuspend(key);
                case "requires-new-chain" -> reservations.takeThenNest(key);
                default -> throw new IllegalArgumentException("no shape " + shape);
            }
            return "ok";
        } catch (LockTimeoutException waited) {
            return "waited";
        } catch (TransactionalException rolledBack) {
            return "rolled back"; // a doomed transaction, where the runtime reports its rollback
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException timedOut) {
            return "timed out";
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException full) {
            return "turned away";
        } catch (LockServiceUnavailableException down) {
            return "unavailable";
        } catch (org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException open) {
            return "open";
        }
    }

    /**
     * An asynchronous call returns its unfinished stage; then a later caller on the same thread
     * tries its key once: {@code refused}, or {@code free} when the lock was free to take because
     * its transaction had already completed (a runtime whose {@code @Transactional} commits as the
     * method returns), or {@code entered} — a caller let into a lock that an unfinished call or an
     * open transaction still held.
     */
    private String laterCaller(String key, Function<CompletionStage<String>, CompletionStage<String>> call,
                               BooleanSupplier transactionCompleted) throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletionStage<String> unfinished = call.apply(done);
        String answer;
        try {
            later.touch(key);
            answer = transactionCompleted.getAsBoolean() ? "free" : "entered";
        } catch (LockTimeoutException refused) {
            answer = "refused";
        }
        done.complete("done");
        unfinished.toCompletableFuture().get(10, TimeUnit.SECONDS);
        return answer;
    }
}
