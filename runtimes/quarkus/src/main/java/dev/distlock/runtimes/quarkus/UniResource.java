package dev.distlock.runtimes.quarkus;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * Quarkus REST hands back the locked {@code Uni} and subscribes to it: on a worker thread
 * ({@code @Blocking}) or on the event loop ({@code @NonBlocking}, the default for a {@code Uni}).
 * {@code lock} is {@code locked}, {@code unlocked} (the twin), {@code locked-in-transaction} or
 * {@code in-transaction-unlocked}; the regions are counted as {@code uni-<where>-<lock>}.
 */
@Path("/uni")
@Produces(MediaType.TEXT_PLAIN)
public class UniResource {

    @Inject
    UniWork work;

    @POST
    @Path("worker/{lock}/{key}")
    @Blocking
    public Uni<String> onWorker(@PathParam("lock") String lock, @PathParam("key") String key) {
        return call("uni-worker-" + lock, lock, key);
    }

    @POST
    @Path("event-loop/{lock}/{key}")
    @NonBlocking
    public Uni<String> onEventLoop(@PathParam("lock") String lock, @PathParam("key") String key) {
        return call("uni-event-loop-" + lock, lock, key);
    }

    private Uni<String> call(String shape, String lock, String key) {
        return switch (lock) {
            case "locked" -> work.locked(shape, key);
            case "unlocked" -> work.unlocked(shape, key);
            case "locked-in-transaction" -> work.lockedInTransaction(shape, key);
            case "in-transaction-unlocked" -> work.inTransactionUnlocked(shape, key);
            default -> throw new NotFoundException("no lock " + lock);
        };
    }
}
