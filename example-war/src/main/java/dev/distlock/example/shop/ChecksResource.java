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
}
