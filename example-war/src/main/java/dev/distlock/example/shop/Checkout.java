package dev.distlock.example.shop;

import dev.distlock.DistlockException;
import dev.distlock.Stripes;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Routes an order: to the SKU's one lock, or for a striped SKU to one of its stripes.
 *
 * <p>First a look at the committed stock, without any lock: a SKU that does not exist is refused,
 * and one with too little stock is sold out right there (the answer is true of the moment of that
 * read, so no buyer waits in the lock queue only to hear "sold out"). Whatever the look saw is
 * checked again under the lock before anything is written.
 *
 * <p>A striped SKU: the look reads every stripe's stock in the same query, and the order goes to one
 * stripe that held enough, picked by {@link Stripes#pick} (in proportion to what each holds), under
 * that stripe's lock alone. If that stripe was emptied in between, the order looks again: a stale
 * look costs one lock, never a unit sold twice, since the stripe is read again under its lock. A
 * sold-out answer takes no lock at all, however many stripes there are. When no single stripe can
 * serve the order but all of them together can, or after {@link #TRIES} tries found their stripe
 * emptied, the order takes every stripe's lock and draws from several.
 *
 * <p>The order gets its id and its number once the look has seen enough stock, before any lock:
 * nothing about them needs the lock, and a number costs a Redis round trip that would otherwise
 * lengthen the section every buyer of the SKU queues for. An order the look let through but the
 * locked read refuses (sold out in between) leaves a gap in the day's numbers, as a rolled-back
 * one does; numbers never repeat.
 */
@ApplicationScoped
public class Checkout {

    private static final System.Logger LOG = System.getLogger(Checkout.class.getName());

    /** Tries this many stripes, each after a look, before taking every stripe's lock. */
    static final int TRIES = 4;

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    private final IdGenerator orderIds;
    private final DailySerials orderNumbers;

    @Inject
    Checkout(@GeneratedId("order") IdGenerator orderIds, @GeneratedId("order-number") DailySerials orderNumbers) {
        this.orderIds = orderIds;
        this.orderNumbers = orderNumbers;
    }

    /** For proxies only. */
    protected Checkout() {
        this.orderIds = null;
        this.orderNumbers = null;
    }

    public Order place(OrderDesk desk, String sku, int quantity) {
        NumberedOrder order = null;
        for (int look = 1; ; look++) {
            Stock stock = look(sku).orElseThrow(() -> ShopException.notForSale(sku));
            if (stock.total() < quantity) {
                throw ShopException.outOfStock(sku, quantity, stock.total());
            }
            if (order == null) {
                order = new NumberedOrder(orderIds.nextId(), orderNumbers.next().text(), sku, quantity);
            }
            NumberedOrder placing = order;
            if (stock.stripes().length == 0 || !desk.sellsStripes()) {
                return standing(placing, () -> desk.place(placing), Function.identity());
            }
            int[] stripes = stock.stripes();
            OptionalInt stripe = Stripes.of(stripes.length).pick(stripes, quantity);
            if (stripe.isEmpty() || look == TRIES) {
                return standing(placing, () -> desk.placeAcross(placing, stripes.length), Function.identity());
            }
            Optional<Order> placed = standing(placing, () -> desk.placeIn(placing, stripe.getAsInt()), Optional::of);
            if (placed.isPresent()) {
                return placed.get();
            }
        }
    }

    /**
     * The desk's answer; or, when distlock failed the call (the lock found lost, or Redis not
     * reachable, at the release after the commit) but the order is in the database, the order. Its
     * transaction committed, and its stock write was fenced: had a later holder of the SKU's lock
     * written first, the write would have been refused and nothing committed. So the order stands
     * and the buyer is told so, not "try again" for an order that was placed. An order that is not
     * in the database was not placed: the failure is the answer.
     */
    private <T> T standing(NumberedOrder order, Supplier<T> placing, Function<Order, T> asAnswer) {
        try {
            return placing.get();
        } catch (DistlockException failure) {
            Optional<Order> committed;
            try {
                committed = Optional.ofNullable(entityManager.find(PurchaseOrder.class, order.id())).map(PurchaseOrder::view);
            } catch (RuntimeException unreadable) {
                failure.addSuppressed(unreadable);
                throw failure;
            }
            if (committed.isEmpty()) {
                throw failure;
            }
            LOG.log(System.Logger.Level.WARNING, "Order " + order.id() + " was committed before distlock failed its call; "
                    + "it stands (its stock write was fenced): " + failure.getMessage());
            return asAnswer.apply(committed.get());
        }
    }

    /** A SKU's committed stock: unstriped ({@code stripes} empty) or the stock of each stripe. */
    record Stock(int total, int[] stripes) {
    }

    /** One query, so one consistent snapshot of the SKU's row and its stripes' rows. */
    Optional<Stock> look(String sku) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = entityManager.createNativeQuery("select i.stock, s.stripe, s.stock from shop_stock i "
                        + "left join shop_stock_stripe s on s.sku = i.sku where i.sku = ?1 order by s.stripe")
                .setParameter(1, sku).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        int total = ((Number) rows.get(0)[0]).intValue();
        if (rows.get(0)[1] == null) {
            return Optional.of(new Stock(total, new int[0]));
        }
        int[] stripes = new int[rows.size()];
        for (Object[] row : rows) {
            int stripe = ((Number) row[1]).intValue();
            if (stripe < 0 || stripe >= stripes.length) {
                throw new IllegalStateException("the stripes of " + sku + " are not numbered 0.." + (stripes.length - 1)
                        + ": found stripe " + stripe);
            }
            stripes[stripe] = ((Number) row[2]).intValue();
            total += stripes[stripe];
        }
        return Optional.of(new Stock(total, stripes));
    }
}
