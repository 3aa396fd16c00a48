package dev.distlock.example.shop;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.List;

/**
 * Sets a SKU's stock under the same lock as {@link LockedOrders#place}, so a restock never
 * overwrites an order that is being placed, on this server or another. A striped SKU's stock is
 * set under every stripe's lock too, taken inside the transaction (so they are released after it
 * commits), after {@code stock:{sku}}: that order is the same for every restock, and orders take
 * stripe locks only, so no two of them can wait for each other in a circle.
 */
@ApplicationScoped
public class StockLedger {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    private final LockContext lock;
    private final DistributedLocks locks;
    private final int newSkuStripes;

    @Inject
    StockLedger(LockContext lock, DistributedLocks locks,
                @ConfigProperty(name = "shop.stock-stripes", defaultValue = "1") String newSkuStripes) {
        this.lock = lock;
        this.locks = locks;
        this.newSkuStripes = ShopLimits.stripes(newSkuStripes, "shop.stock-stripes");
    }

    /** For proxies only. */
    protected StockLedger() {
        this.lock = null;
        this.locks = null;
        this.newSkuStripes = 1;
    }

    /** Reads the configuration while the application starts, so that a bad {@code shop.stock-stripes} fails the deployment. */
    void checkConfiguration(@Observes @Initialized(ApplicationScoped.class) Object started) {
        newSkuStripes();
    }

    /** How many stripes a SKU created without saying gets ({@code shop.stock-stripes}); 1 is unstriped. */
    public int newSkuStripes() {
        return newSkuStripes;
    }

    /**
     * Sets the stock of {@code sku}, creating it if needed.
     *
     * @param stripes how many stripes to keep the stock in from now on (1: unstriped); {@code null}
     *                keeps the SKU's, and gives a new SKU {@code shop.stock-stripes}
     */
    @Locked(value = "stock:{sku}", waitTime = 30_000, fenced = true)
    @Transactional
    public StockChange set(String sku, int stock, String name, Integer stripes) {
        long token = lock.fencingToken().orElseThrow();
        StockItem item = entityManager.find(StockItem.class, sku);
        // Only a restock, under stock:{sku} as this one is, adds or removes stripes: the count holds.
        int present = item == null ? 0 : entityManager.createQuery(
                        "select count(s) from StockStripe s where s.sku = :sku", Long.class)
                .setParameter("sku", sku).getSingleResult().intValue();
        int count = stripes != null ? stripes : item == null ? newSkuStripes : Math.max(present, 1);
        int rows = count == 1 ? 0 : count;
        int locked = Math.max(rows, present);
        if (locked == 0) {
            return write(sku, stock, name, item, token, List.of(), rows);
        }
        // The stripes' stock is read only once their locks are held: orders change it under them.
        return locks.exclusive(StockKeys.stripes(sku, locked)).fenced().waitTime(WAIT)
                .get(() -> write(sku, stock, name, item, token, stripesOf(sku), rows));
    }

    private List<StockStripe> stripesOf(String sku) {
        return entityManager.createQuery("select s from StockStripe s where s.sku = :sku order by s.stripe", StockStripe.class)
                .setParameter("sku", sku).getResultList();
    }

    private StockChange write(String sku, int stock, String name, StockItem item, long token, List<StockStripe> parts, int rows) {
        int unstriped = rows == 0 ? stock : 0;
        int previous;
        String newName;
        if (item == null) {
            previous = 0;
            newName = name == null ? sku : name;
            entityManager.persist(new StockItem(sku, newName, unstriped, token));
        } else {
            previous = item.stock() + parts.stream().mapToInt(StockStripe::stock).sum();
            if (name != null) {
                item.setName(name);
            }
            newName = item.view().name();
            OrderBook.writeStockFenced(entityManager, item, unstriped, token);
        }
        for (int stripe = 0; stripe < Math.max(rows, parts.size()); stripe++) {
            long stripeToken = lock.fencingToken(StockKeys.stripe(sku, stripe)).orElseThrow();
            StockStripe part = stripe < parts.size() ? parts.get(stripe) : null;
            if (stripe >= rows) {
                deleteFenced(part, stripeToken);
            } else if (part == null) {
                entityManager.persist(new StockStripe(sku, stripe, share(stock, rows, stripe), stripeToken));
            } else {
                OrderBook.writeStripeFenced(entityManager, part, share(stock, rows, stripe), stripeToken);
            }
        }
        return new StockChange(sku, newName, stock, previous);
    }

    /** Stripe {@code stripe}'s part of {@code stock} spread evenly over {@code rows} stripes; the first ones get the remainder. */
    static int share(int stock, int rows, int stripe) {
        return stock / rows + (stripe < stock % rows ? 1 : 0);
    }

    private void deleteFenced(StockStripe part, long token) {
        int deleted = entityManager.createQuery("DELETE FROM StockStripe s "
                        + "WHERE s.sku = :sku AND s.stripe = :stripe AND s.fence = :seen AND s.fence <= :token")
                .setParameter("sku", part.sku()).setParameter("stripe", part.stripe()).setParameter("seen", part.fence())
                .setParameter("token", token).executeUpdate();
        if (deleted != 1) {
            throw ShopException.staleLock(part.sku());
        }
    }
}
