package dev.distlock.core.id;

/** Durable high-water marks: where the ranges of a segment generator come from. */
public interface SegmentStore {

    /**
     * Leases the next {@code step} ids of {@code name}, committed before it returns, in a
     * transaction of its own: once returned, no other caller can ever get any id of the range.
     *
     * @throws Exception when the store cannot be reached or the lease cannot be committed
     */
    Range lease(String name, long step) throws Exception;

    /** Ids {@code first} to {@code last}, both included. */
    record Range(long first, long last) {
        public Range {
            if (first < 1 || last < first) {
                throw new IllegalArgumentException("invalid range " + first + ".." + last);
            }
        }

        public long size() {
            return last - first + 1;
        }
    }
}
