package dev.distlock.runtimes.shapes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** A plain repository: transactions of its own, no lock of its own; the audit record it writes has one. */
@ApplicationScoped
public class Repository {

    @Inject
    AuditLog auditLog;

    /** Begins and commits inside its caller's locked call. */
    @Transactional
    public void save(String key) {
        auditLog.record(key);
    }

    /** Kept whatever its caller's transaction does. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void saveApart(String key) {
        auditLog.record(key);
    }
}
