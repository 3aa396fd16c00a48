package dev.distlock.runtimes.shapes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Transactional only through its stereotype: distlock deployed beside it must leave it so. */
@ApplicationScoped
@TransactionalService
public class Stereotyped {

    @Inject
    Regions regions;

    /** Whether the method runs in a transaction. */
    public boolean inTransaction() {
        return regions.registry().getTransactionKey() != null;
    }
}
