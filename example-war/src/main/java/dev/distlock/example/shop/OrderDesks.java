package dev.distlock.example.shop;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The desk orders go to: {@link LockedOrders}, or {@link UnlockedOrders} with
 * {@code shop.locking=false} (the oversell demo). {@code shop.bench.desk} is for the shop
 * benchmark ({@code ../shop-bench.sh}): {@code combined} serves the buyers of a SKU waiting in a
 * server together ({@link CombinedOrders}); {@code redisson} or {@code row-lock} put what users
 * would write instead of distlock in its place, to measure both on the same shop.
 */
@ApplicationScoped
public class OrderDesks {

    private final OrderDesk desk;

    @Inject
    OrderDesks(LockedOrders locked, UnlockedOrders unlocked, RedissonOrders redisson, RowLockOrders rowLock, CombinedOrders combined,
               @ConfigProperty(name = "shop.locking", defaultValue = "true") boolean locking,
               @ConfigProperty(name = "shop.bench.desk", defaultValue = "distlock") String bench) {
        this.desk = switch (bench.strip()) {
            case "distlock" -> locking ? locked : unlocked;
            case "redisson" -> redisson;
            case "row-lock" -> rowLock;
            case "combined" -> combined;
            default -> throw new IllegalArgumentException(
                    "shop.bench.desk must be distlock, combined, redisson or row-lock, was '" + bench + "'");
        };
    }

    /** For proxies only. */
    protected OrderDesks() {
        this.desk = null;
    }

    /** Chooses the desk while the application starts, so that a bad value fails the deployment. */
    void choose(@Observes @Initialized(ApplicationScoped.class) Object started) {
        desk();
    }

    public OrderDesk desk() {
        return desk;
    }
}
