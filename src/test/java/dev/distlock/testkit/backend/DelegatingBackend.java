package dev.distlock.testkit.backend;

import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;

import java.util.List;
import java.util.Optional;

/**
 * A backend that passes every call on to another: for a test that changes one answer of a real
 * store (holds back a check, goes silent on a release) and needs the rest to stay what the store
 * says. Subclass it and override what the test changes; everything else is the wrapped store's.
 */
public class DelegatingBackend implements LockBackend {

    private final LockBackend delegate;

    public DelegatingBackend(LockBackend delegate) {
        this.delegate = delegate;
    }

    /** The store every call goes to. */
    protected LockBackend delegate() {
        return delegate;
    }

    @Override
    public String displayName() {
        return delegate.displayName();
    }

    @Override
    public void bind(Later later) {
        delegate.bind(later);
    }

    @Override
    public void identify(String nodeName, String keyPrefix) {
        delegate.identify(nodeName, keyPrefix);
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        return delegate.acquire(name, policy, deadlineNanos);
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return delegate.leaseMillis(policy);
    }

    @Override
    public int maxNameLength() {
        return delegate.maxNameLength();
    }

    @Override
    public long raiseFencingFloor(String name, long floor) {
        return delegate.raiseFencingFloor(name, floor);
    }

    @Override
    public List<StoredLock> inspect(String namePrefix, int limit) {
        return delegate.inspect(namePrefix, limit);
    }

    @Override
    public List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        return delegate.forceRelease(name, onlyIfFenced);
    }

    @Override
    public Optional<String> problem() {
        return delegate.problem();
    }

    @Override
    public void releaseThreadState() {
        delegate.releaseThreadState();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
