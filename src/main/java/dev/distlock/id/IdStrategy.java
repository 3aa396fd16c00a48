package dev.distlock.id;

/** How an {@link IdGenerator} makes its ids. */
public enum IdStrategy {

    /**
     * Whatever configuration says: {@code distlock.id.<name>.strategy}, else
     * {@code distlock.id.strategy}, else {@link #SNOWFLAKE}.
     */
    CONFIGURED,

    /**
     * Time, worker id and sequence in one 64-bit number: roughly time-ordered across nodes,
     * increasing within a node, no I/O per id. The worker id is fixed in configuration or leased in
     * Redis so that two live JVMs never share one.
     */
    SNOWFLAKE,

    /**
     * Ranges leased from a database table: compact, increasing within a node, never repeated after
     * restarts or after Redis loses data. Gaps after restarts.
     */
    SEGMENT,

    /**
     * Readable numbers, date and the day's serial ({@code 20261124-000042}): not a {@code long}, so
     * it is injected as {@link DailySerials}, which implies this strategy.
     */
    DAILY_SERIAL
}
