package dev.distlock.example.shop;

import dev.distlock.Stripes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.List;
import java.util.Optional;

/**
 * Routes an order: to the SKU's one lock, or for a striped SKU to one of its stripes.
 *
 * <p>First a look at the committed stock, without any lock: a SKU that does not exist is refused,
 * and one with too little stock is sold out right there (the answer is true of the moment of that
 * read, so no buyer waits in the lock queue only to hear "sold out"). Whatever the look saw is
 * checked again under the lock before anything is written.
 *
 * <p>A striped SKU: starting at a random stripe, the order goes to each stripe that held enough
 * when looked at, under that stripe's lock alone, until one serves it. If none did (the others
 * drained them meanwhile), look again; when no single stripe can serve it but all of them together
 * can, the order takes every stripe's lock and draws from several.
 */
@ApplicationScoped
public class Checkout {

    /** Looks at the stock this many times before taking every stripe's lock. */
    private static final int LOOKS = 3;

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    public Order place(OrderDesk desk, String sku, int quantity) {
        for (int look = 1; ; look++) {
            Stock stock = look(sku).orElseThrow(() -> ShopException.notForSale(sku));
            if (stock.total() < quantity) {
                throw ShopException.outOfStock(sku, quantity, stock.total());
            }
            if (stock.stripes().length == 0 || !desk.sellsStripes()) {
                return desk.place(sku, quantity);
            }
            int[] stripes = stock.stripes();
            boolean anyCould = false;
            for (int stripe : Stripes.of(stripes.length).walk()) {
                if (stripes[stripe] >= quantity) {
                    anyCould = true;
                    Optional<Order> order = desk.placeIn(sku, stripe, quantity);
                    if (order.isPresent()) {
                        return order.get();
                    }
                }
            }
            if (!anyCould || look == LOOKS) {
                return desk.placeAcross(sku, stripes.length, quantity);
            }
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
