package dev.distlock.bench;

/**
 * A store under {@link BackendDriver}'s test ({@link BackendStores} makes them): its names in the
 * table, and its nodes, each a connection of its own with the two lockers the driver compares.
 */
interface BackendStore extends AutoCloseable {

    String name();

    String baselineName();

    Node node() throws Exception;

    @Override
    void close() throws Exception;

    /** One way to run a section under a lock on one node. */
    interface Locker {
        void locked(Runnable section) throws Exception;
    }

    /** Makes a node: a connection of its own, and its two lockers. */
    interface Node extends AutoCloseable {
        Locker baseline() throws Exception;

        Locker distlock();

        @Override
        void close() throws Exception;
    }
}
