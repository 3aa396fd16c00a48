package dev.distlock.runtimes.concurrency;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.concurrent.TimeUnit;

/** One call of a {@link Deferred} shape, waited for: {@code ok} when it ran on another thread than the request's. */
@Path("/deferred")
@Produces(MediaType.TEXT_PLAIN)
public class DeferredResource {

    @Inject
    Deferred deferred;

    @POST
    @Path("{shape}/{key}")
    public String run(@PathParam("shape") String shape, @PathParam("key") String key) throws Exception {
        String caller = Thread.currentThread().getName();
        String ranOn = switch (shape) {
            case "deferred" -> deferred.book(key).get(60, TimeUnit.SECONDS);
            case "deferred-unlocked" -> deferred.bookUnlocked(key).get(60, TimeUnit.SECONDS);
            default -> throw new IllegalArgumentException("no shape " + shape);
        };
        return ranOn.equals(caller) ? "on the caller's thread" : "ok";
    }
}
