package dev.distlock.runtimes.shapes;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** An audit record with a lock of its own. */
@ApplicationScoped
public class AuditLog {

    @Inject
    Regions regions;

    @Locked("audit:{key}")
    public void record(String key) {
        regions.think();
    }
}
