package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

/**
 * A range a segment generator was handed and refused, because it was not above the ids the
 * generator already had: the store went back. What the error, the log, the metric and readiness say.
 *
 * @param generator the generator's name
 * @param received  the range the store handed out
 * @param spare     whether it was a kept spare rather than a new lease
 * @param had       the last id of the highest range the generator had installed
 * @param issued    the highest id it had issued by then
 * @param where     where the store keeps the generator's high-water mark
 */
public record RangeRefused(String generator, SegmentStore.Range received, boolean spare, long had, long issued, String where) {

    public String message() {
        return "Id generator '" + generator + "': the id store went back. It handed out ids " + received.first() + ".."
                + received.last() + (spare ? " (a kept spare)" : "") + ", but this generator already had ids up to " + had
                + " (issued up to " + issued + "): a database failover or restore lost the committed update that leased them,"
                + " and other nodes may now be given ids this one issued. None of the range is issued. Set the high-water mark ("
                + where + ") above the highest id any node issued, and look for ids issued twice since the failover;"
                + " each call leases again, and the generator goes on once the store hands out a range above " + had + ".";
    }
}
