package dev.distlock.id;

import java.util.Optional;

/** A source of unique 64-bit ids. Thread-safe. */
public interface IdGenerator {

    /**
     * The next id: unique across every node sharing the generator's name, increasing within this
     * node, always positive.
     *
     * @throws IdGenerationException when no id can be issued safely (worker lease lost, clock moved
     *                               back too far, the id store is unreachable and the current range is used up)
     */
    long nextId();

    /** The generator's name, as in {@link GeneratedId#value()}. */
    String name();

    IdStrategy strategy();

    /** The parts of a Snowflake id; empty for strategies whose ids carry no time. */
    default Optional<SnowflakeId> decode(long id) {
        return Optional.empty();
    }
}
