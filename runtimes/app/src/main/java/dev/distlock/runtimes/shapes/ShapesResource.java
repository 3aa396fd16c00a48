package dev.distlock.runtimes.shapes;

import dev.distlock.LockTimeoutException;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionalException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

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

    @POST
    @Path("{shape}/{key}")
    public String run(@PathParam("shape") String shape, @PathParam("key") String key) throws Exception {
        try {
            switch (shape) {
                case "plain-bean-inside" -> orders.placeThenConfirm(key);
                case "plain-bean-inside-unlocked" -> orders.placeThenConfirmUnlocked(key);
                case "requires-new-inside" -> reservations.reserveThenPay(key);
                case "requires-new-inside-unlocked" -> reservations.reserveThenPayUnlocked(key);
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
        }
    }
}
