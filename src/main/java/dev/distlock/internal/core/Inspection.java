package dev.distlock.internal.core;

import dev.distlock.LockInfo;
import dev.distlock.LockMode;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.StoredLock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Answers {@code DistributedLocks.inspect}: this JVM's holders and queued callers of the locks under
 * a key prefix, from what the engine keeps anyway (the lease watch's tenures and the local queues),
 * and the store's own account, read from it at the time. Nothing is added to the lock path but one
 * field written per hold ({@link Tenure#holder}).
 */
final class Inspection {

    private final LockBackend backend;
    private final LeaseWatch leaseWatch;
    private final LocalQueues localQueues;
    /** The namespaces: exclusive locks, then read-write locks. */
    private final String[] namespaces;

    Inspection(LockBackend backend, LeaseWatch leaseWatch, LocalQueues localQueues, String keyPrefix) {
        this.backend = backend;
        this.leaseWatch = leaseWatch;
        this.localQueues = localQueues;
        this.namespaces = new String[] {LockNames.namespace(keyPrefix, LockMode.EXCLUSIVE), LockNames.namespace(keyPrefix, LockMode.WRITE)};
    }

    /** One lock's facts, gathered by name before they become a {@link LockInfo}. */
    private static final class Facts {
        final String key;
        LockMode mode;
        final List<LockInfo.Holder> holders = new ArrayList<>();
        int users;
        StoredLock stored;

        Facts(String key, LockMode mode) {
            this.key = key;
            this.mode = mode;
        }
    }

    List<LockInfo> inspect(String keyPrefix, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be > 0, was " + limit);
        }
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        Map<String, Facts> byName = new TreeMap<>();
        List<LockInfo.Stored> storeAnswers = new ArrayList<>();
        boolean[] complete = new boolean[namespaces.length];
        List<Tenure> tenures = leaseWatch.heldTenures();
        for (int n = 0; n < namespaces.length; n++) {
            String namespace = namespaces[n];
            String namePrefix = namespace + keyPrefix;
            LockMode namespaceMode = n == 0 ? LockMode.EXCLUSIVE : LockMode.WRITE;
            for (Tenure tenure : tenures) {
                Hold hold = tenure.holder;
                if (hold == null || !tenure.name.startsWith(namePrefix) || tenure.isReleased()) {
                    continue;
                }
                Facts facts = byName.computeIfAbsent(tenure.name, name -> new Facts(name.substring(namespace.length()), hold.mode));
                facts.mode = hold.mode;
                facts.holders.add(new LockInfo.Holder(hold.site, at(now, nowNanos, hold.acquiredAtNanos),
                        at(now, nowNanos, tenure.acquiredAtNanos), tenure.fencingToken, hold.finished()));
            }
            localQueues.users(namePrefix).forEach((name, users) ->
                    byName.computeIfAbsent(name, key -> new Facts(key.substring(namespace.length()), namespaceMode)).users = users);
            try {
                List<StoredLock> stored = backend.inspect(namePrefix, limit);
                complete[n] = stored.size() < limit;
                for (StoredLock lock : stored) {
                    Facts facts = byName.computeIfAbsent(lock.name(), name -> new Facts(name.substring(namespace.length()), namespaceMode));
                    facts.stored = lock;
                    if (facts.holders.isEmpty() && lock.mode() == LockMode.READ) {
                        facts.mode = LockMode.READ;
                    }
                }
            } catch (UnsupportedOperationException e) {
                storeAnswers.add(LockInfo.Stored.unknown(e.getMessage()));
            } catch (RuntimeException e) {
                storeAnswers.add(LockInfo.Stored.unknown(backend.displayName() + " did not answer: " + e.getMessage()));
            }
        }
        LockInfo.Stored noAnswer = storeAnswers.isEmpty() ? null : storeAnswers.get(0);
        List<LockInfo> infos = new ArrayList<>();
        for (Map.Entry<String, Facts> entry : byName.entrySet()) {
            if (infos.size() == limit) {
                break;
            }
            Facts facts = entry.getValue();
            boolean exclusiveNamespace = entry.getKey().startsWith(namespaces[0]);
            LockInfo.Stored store;
            if (facts.stored != null) {
                StoredLock lock = facts.stored;
                Map<String, String> nodes = new TreeMap<>();
                lock.holders().forEach(holder -> holder.node().ifPresent(node -> nodes.put(holder.id(), node)));
                store = new LockInfo.Stored(LockInfo.Stored.State.HELD, lock.holderIds(), nodes, lock.heldByThisClient(),
                        lock.leaseLeftMillis() == StoredLock.NO_EXPIRY ? Optional.empty() : Optional.of(Duration.ofMillis(lock.leaseLeftMillis())),
                        Optional.empty());
            } else if (noAnswer != null) {
                store = noAnswer;
            } else if (!complete[exclusiveNamespace ? 0 : 1]) {
                store = LockInfo.Stored.unknown("not among the first " + limit + " locks the store listed");
            } else {
                store = new LockInfo.Stored(LockInfo.Stored.State.FREE, List.of(), false, Optional.empty(), Optional.empty());
            }
            int heldHere = facts.holders.isEmpty() || facts.mode == LockMode.READ ? 0 : 1;
            infos.add(new LockInfo(facts.key, facts.mode, facts.holders, Math.max(0, facts.users - heldHere), store));
        }
        return infos;
    }

    private static Instant at(Instant now, long nowNanos, long thenNanos) {
        return now.minusNanos(nowNanos - thenNanos);
    }
}
