package dev.distlock.spi.id;

import java.util.List;
import java.util.Optional;

/**
 * Durable high-water marks: where the ranges of a segment generator come from. A store may also
 * keep the spare ranges a generator did not use when it was closed, for the next one to take.
 */
public interface SegmentStore {

    /**
     * Leases the next {@code step} ids of {@code name}, committed before it returns, in a
     * transaction of its own: once returned, no other caller can ever get any id of the range.
     *
     * @throws Exception when the store cannot be reached or the lease cannot be committed
     */
    Range lease(String name, long step) throws Exception;

    /**
     * Takes the kept spare range of {@code name} with the lowest first id above {@code above},
     * committed before it returns: once returned, no other caller can ever take it. Empty when no
     * such range is kept; a store that keeps none always answers so.
     *
     * @throws Exception when the store cannot be reached or the taking cannot be committed
     */
    default Optional<Range> takeSpare(String name, long above) throws Exception {
        return Optional.empty();
    }

    /**
     * Keeps ranges of {@code name} that a closing generator leased but will never issue, for a
     * later {@link #takeSpare}. The caller must have stopped issuing them before; a range kept
     * twice would be issued twice. A store that keeps none drops them: those ids are never issued.
     *
     * @throws Exception when the store cannot be reached or the ranges cannot be committed; then
     *                   none of them is kept
     */
    default void keepSpares(String name, List<Range> spares) throws Exception {
    }

    /**
     * Where the high-water mark of {@code name} is kept, for an operator who must set it right: a
     * refused range's message names it.
     */
    default String whereKept(String name) {
        return "the id store's high-water mark of '" + name + "'";
    }

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
