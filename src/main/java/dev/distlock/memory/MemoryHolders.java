package dev.distlock.memory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Who holds one name in an {@link InMemoryLockBackend}: one writer (exclusive or write), or
 * readers. Its own class so that what changes a name's holders (a grant, a release, a lease
 * running out) is written once, beside them; the backend's monitor guards every call.
 */
final class MemoryHolders {

    MemoryLease writer;
    final Set<MemoryLease> readers = new HashSet<>();

    boolean isEmpty() {
        return writer == null && readers.isEmpty();
    }

    boolean contains(MemoryLease lease) {
        return writer == lease || readers.contains(lease);
    }

    /** Every holder: the readers, then the writer. */
    List<MemoryLease> all() {
        List<MemoryLease> leases = new ArrayList<>(readers);
        if (writer != null) {
            leases.add(writer);
        }
        return leases;
    }

    /** {@code lease} holds the name no more. */
    void remove(MemoryLease lease) {
        if (writer == lease) {
            writer = null;
        } else {
            readers.remove(lease);
        }
    }

    /** Drops holders whose fixed lease has ended; when the next one ends ({@link Long#MAX_VALUE} if never). */
    long endExpired(long now) {
        long nextEnd = Long.MAX_VALUE;
        if (writer != null) {
            if (now - writer.endsAtNanos >= 0) {
                writer = null;
            } else {
                nextEnd = writer.endsAtNanos;
            }
        }
        for (var it = readers.iterator(); it.hasNext(); ) {
            MemoryLease reader = it.next();
            if (now - reader.endsAtNanos >= 0) {
                it.remove();
            } else {
                nextEnd = Math.min(nextEnd, reader.endsAtNanos);
            }
        }
        return nextEnd;
    }
}
