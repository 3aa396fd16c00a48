package dev.distlock.internal.id;

import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLease;
import dev.distlock.spi.id.WorkerSource;

/** A worker id from configuration: the operator guarantees that no two nodes share it. */
final class FixedWorker implements WorkerSource {

    private final WorkerLease lease;

    FixedWorker(String generator, SnowflakeLayout layout, long workerId) {
        if (workerId < 0 || workerId > layout.maxWorker()) {
            throw new IllegalArgumentException("distlock.id." + generator + ".worker-id=" + workerId
                    + ": must be between 0 and " + layout.maxWorker() + " for " + layout.workerBits() + " worker bits");
        }
        this.lease = new WorkerLease(generator, workerId, -1, WorkerLease.UNBOUNDED, WorkerLease.FOREVER);
    }

    @Override
    public WorkerLease current() {
        return lease;
    }

    @Override
    public void close() {
        // nothing is held
    }
}
