package dev.distlock.example.shop;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * {@code POST /api/orders} places an order; {@code GET /api/orders/{id}} shows one. Errors are
 * {@code application/problem+json} (see {@link ProblemMappers}).
 */
@Path("orders")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class OrdersResource {

    private final OrderDesks desks;
    private final Checkout checkout;
    private final OrderBook book;

    @Inject
    OrdersResource(OrderDesks desks, Checkout checkout, OrderBook book) {
        this.desks = desks;
        this.checkout = checkout;
        this.book = book;
    }

    /** For proxies only. */
    protected OrdersResource() {
        this.desks = null;
        this.checkout = null;
        this.book = null;
    }

    @POST
    public Response place(OrderRequest body, @Context UriInfo uri) {
        OrderRequest.Valid request = OrderRequest.validated(body);
        Order order = checkout.place(desks.desk(), request.sku(), request.quantity());
        return Response.created(uri.getAbsolutePathBuilder().path(Long.toString(order.id())).build()).entity(order).build();
    }

    @GET
    @Path("{id}")
    public Order find(@PathParam("id") String id) {
        long number;
        try {
            number = Long.parseLong(id.strip());
        } catch (NumberFormatException e) {
            throw ShopException.invalid("an order id is a whole number, was '" + id + "'");
        }
        return book.find(number).orElseThrow(() -> ShopException.unknownOrder(id));
    }
}
