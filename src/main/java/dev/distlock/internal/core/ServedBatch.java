package dev.distlock.internal.core;

import dev.distlock.Batch;

import java.util.Iterator;
import java.util.List;

/** The calls of one combined batch ({@link CombinedCalls}), as the batch method sees them. */
final class ServedBatch implements Batch<Object> {
    static final Object RAN = new Object();
    private final List<WaitingCall> calls;

    ServedBatch(List<WaitingCall> calls) {
        this.calls = calls;
    }

    @Override
    public int size() {
        return calls.size();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<Call<Object>> iterator() {
        return (Iterator) List.copyOf(calls).iterator();
    }
}
