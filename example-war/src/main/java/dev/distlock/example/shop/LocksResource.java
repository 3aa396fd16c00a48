package dev.distlock.example.shop;

import dev.distlock.DistributedLocks;
import dev.distlock.ForcedRelease;
import dev.distlock.LockInfo;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /api/locks?prefix=stock:&limit=100}: the cluster's locks under a key prefix as this
 * server sees them ({@link DistributedLocks#inspect}): who holds each here and since when, how many
 * orders here wait for it, and what the store says (held or free, by which acquisition on which
 * server, lease left).
 *
 * <p>{@code DELETE /api/locks/stock:MUG-BLUE}: ends a stuck lock wherever it is held
 * ({@link DistributedLocks#forceRelease}), if its holder is fenced, as the stock locks are; with
 * {@code ?reason=...}, whoever holds it, logged with the reason. An application would put both
 * behind its operators' role; the example leaves them open.
 */
@Path("locks")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LocksResource {

    private static final int MOST = 1_000;

    @Inject
    DistributedLocks locks;

    /** A holder in this server. */
    public record Holder(String site, String since, long fencingToken, boolean finished) {
    }

    /**
     * One lock; {@code storeServers} names the server of each of {@code storeHolders} (its
     * {@code distlock.node-name}) where the store keeps it; {@code leaseLeftMillis} is null when the
     * store gave none, {@code problem} when it could not say.
     */
    public record Lock(String key, String mode, List<Holder> holdersHere, int waitingHere, String store,
                       List<String> storeHolders, Map<String, String> storeServers, boolean heldByThisServer,
                       Long leaseLeftMillis, String problem) {
    }

    @GET
    public List<Lock> locks(@QueryParam("prefix") @DefaultValue("") String prefix,
                            @QueryParam("limit") @DefaultValue("100") String limitParameter) {
        int limit;
        try {
            limit = Integer.parseInt(limitParameter.strip());
        } catch (NumberFormatException e) {
            throw ShopException.invalid("limit must be a whole number from 1 to " + MOST + ", was '" + limitParameter + "'");
        }
        if (limit < 1 || limit > MOST) {
            throw ShopException.invalid("limit must be from 1 to " + MOST + ", was " + limit);
        }
        return locks.inspect(prefix, limit).stream().map(LocksResource::view).toList();
    }

    /** What a forced release ended: the store's ids of the acquisitions (none when nobody held it). */
    public record Ended(String key, List<String> ended, String reason) {
    }

    @DELETE
    @Path("{key: .+}")
    public Ended end(@PathParam("key") String key, @QueryParam("reason") String reason) {
        if (key.isBlank()) {
            throw ShopException.invalid("a lock key is required");
        }
        ForcedRelease how = reason == null || reason.isBlank() ? ForcedRelease.ifFenced() : ForcedRelease.acknowledging(reason);
        try {
            return new Ended(key, locks.forceRelease(key, how), how.reason().orElse(null));
        } catch (IllegalStateException refused) {
            throw ShopException.lockLeftHeld(key, refused.getMessage());
        }
    }

    private static Lock view(LockInfo lock) {
        LockInfo.Stored store = lock.store();
        return new Lock(lock.key(), lock.mode().name(),
                lock.holdersHere().stream().map(h -> new Holder(h.site(), h.since().toString(), h.fencingToken(), h.finished())).toList(),
                lock.waitingHere(), store.state().name(), store.holders(), new TreeMap<>(store.nodes()), store.heldByThisJvm(),
                store.leaseLeft().map(java.time.Duration::toMillis).orElse(null), store.problem().orElse(null));
    }
}
