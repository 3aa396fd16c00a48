package dev.distlock.example.shop;

import dev.distlock.DistlockException;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Map;

/**
 * Fills an empty catalogue on start-up ({@code shop.seed=false} to skip). Two servers that start
 * at once would both see the table empty and both insert; the lock lets one of them seed and the
 * other find the catalogue full.
 */
@ApplicationScoped
public class Seed {

    private static final System.Logger LOG = System.getLogger(Seed.class.getName());

    /** SKU → name and stock. */
    static final Map<String, StockLevel> CATALOGUE = Map.of(
            "ESPRESSO-250G", new StockLevel("ESPRESSO-250G", "Espresso beans, 250 g", 100),
            "MUG-BLUE", new StockLevel("MUG-BLUE", "Blue mug", 40),
            "GRINDER-PRO", new StockLevel("GRINDER-PRO", "Burr grinder", 5));

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    @Inject
    StockLedger ledger;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object started, Seed self,
                 @ConfigProperty(name = "shop.seed", defaultValue = "true") boolean seed) {
        if (!seed) {
            return;
        }
        try {
            int added = self.seedIfEmpty();
            LOG.log(System.Logger.Level.INFO, added == 0 ? "Catalogue already stocked; not seeding" : "Seeded " + added + " SKUs");
        } catch (DistlockException e) {
            // Redis is down: the shop still starts (readiness says why); seed on a later start.
            LOG.log(System.Logger.Level.WARNING, "Not seeding the catalogue: " + e.getMessage());
        }
    }

    /** @return how many SKUs were added */
    @Locked(value = "seed", waitTime = 30_000)
    @Transactional
    public int seedIfEmpty() {
        long present = entityManager.createQuery("select count(s) from StockItem s", Long.class).getSingleResult();
        if (present > 0) {
            return 0;
        }
        int stripes = ledger.newSkuStripes();
        for (StockLevel item : CATALOGUE.values()) {
            if (stripes == 1) {
                entityManager.persist(new StockItem(item.sku(), item.name(), item.stock(), 0));
            } else {
                // Nobody can order a SKU before this transaction commits: no stripe lock is needed.
                entityManager.persist(new StockItem(item.sku(), item.name(), 0, 0));
                for (int stripe = 0; stripe < stripes; stripe++) {
                    entityManager.persist(new StockStripe(item.sku(), stripe, StockLedger.share(item.stock(), stripes, stripe), 0));
                }
            }
        }
        return CATALOGUE.size();
    }
}
