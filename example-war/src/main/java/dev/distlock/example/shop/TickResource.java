package dev.distlock.example.shop;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** {@code GET /api/ticks}: every run of the stock audit tick in the cluster, as {@code [{"slot":…,"server":…}]}. */
@Path("ticks")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class TickResource {

    @Inject
    StockAudit audit;

    public record Run(long slot, String server) {
    }

    @GET
    public List<Run> runs() {
        return audit.runs().stream().map(run -> new Run(run.slot(), run.server())).toList();
    }
}
