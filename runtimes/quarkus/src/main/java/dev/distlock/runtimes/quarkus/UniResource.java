package dev.distlock.runtimes.quarkus;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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

    /** The longest time a subscription to a locked {@code Uni} held up its event loop, in nanoseconds. */
    private static final AtomicLong LONGEST_EVENT_LOOP_SUBSCRIBE = new AtomicLong();

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
        Uni<String> uni = call("uni-event-loop-" + lock, lock, key);
        // Quarkus subscribes on the event loop: the time subscribing takes is the time the loop is held up.
        return Uni.createFrom().emitter(subscriber -> {
            long started = System.nanoTime();
            uni.subscribe().with(subscriber::complete, subscriber::fail);
            LONGEST_EVENT_LOOP_SUBSCRIBE.accumulateAndGet(System.nanoTime() - started, Math::max);
        });
    }

    /** How long, at most, subscribing to a {@code Uni} held up an event loop since the last time this was asked, in milliseconds. */
    @GET
    @Path("longest-event-loop-subscribe")
    public long longestEventLoopSubscribe() {
        return TimeUnit.NANOSECONDS.toMillis(LONGEST_EVENT_LOOP_SUBSCRIBE.getAndSet(0));
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
