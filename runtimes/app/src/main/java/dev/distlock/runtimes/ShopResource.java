package dev.distlock.runtimes;

import dev.distlock.LockTimeoutException;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Plain-text answers: an order id with 201, 409 when sold out or when a lock could not be had in time. */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public class ShopResource {

    @Inject
    Stock stock;

    @Inject
    Checkout checkout;

    @Inject
    @GeneratedId("order")
    IdGenerator orderIds;

    @POST
    @Path("buy/{sku}")
    public Response buy(@PathParam("sku") String sku) throws InterruptedException {
        return answer(stock.buy(sku));
    }

    @POST
    @Path("buy-unlocked/{sku}")
    public Response buyUnlocked(@PathParam("sku") String sku) throws InterruptedException {
        return answer(stock.buyUnlocked(sku));
    }

    @PUT
    @Path("stock/{sku}/{units}")
    public String restock(@PathParam("sku") String sku, @PathParam("units") int units) {
        stock.restock(sku, units);
        return Integer.toString(units);
    }

    @GET
    @Path("stock/{sku}")
    public String level(@PathParam("sku") String sku) {
        return Integer.toString(stock.level(sku));
    }

    @GET
    @Path("held/{sku}")
    public String held(@PathParam("sku") String sku) {
        return Boolean.toString(stock.heldInRedis(sku));
    }

    @POST
    @Path("checkout/{sku}")
    public String checkout(@PathParam("sku") String sku) {
        return Boolean.toString(checkout.keyHeldUntilCommit(sku));
    }

    @POST
    @Path("no-checkout/{sku}")
    public String noCheckout(@PathParam("sku") String sku) {
        return Boolean.toString(checkout.keyHeldWithoutTransaction(sku));
    }

    @POST
    @Path("hold/{millis}")
    public Response hold(@PathParam("millis") long millis) throws InterruptedException {
        try {
            stock.hold(millis);
            return Response.ok("held").build();
        } catch (LockTimeoutException e) {
            return Response.status(409).entity("busy: " + e.getMessage()).build();
        }
    }

    private Response answer(int left) {
        if (left < 0) {
            return Response.status(409).entity("sold out").build();
        }
        return Response.status(201).entity(Long.toString(orderIds.nextId())).build();
    }
}
