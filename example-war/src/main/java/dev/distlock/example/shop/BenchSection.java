package dev.distlock.example.shop;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * For the shop benchmark only: the serialized section of an order placed by one of the desks that
 * stand in for distlock ({@link RedissonOrders}, {@link RowLockOrders}), as a flight recorder event,
 * so that the benchmark can set their sections beside distlock's (whose own events show
 * {@link LockedOrders}'s). Recorded only when a recording enables {@code shop.BenchSection}.
 */
@Name("shop.BenchSection")
@Label("Bench Section")
@Category("Shop")
@Description("An order's serialized section under a lock that is not distlock's: from holding the lock to giving it up")
@Enabled(false)
@StackTrace(false)
final class BenchSection extends Event {

    private static final EventType TYPE = EventType.getEventType(BenchSection.class);

    @Label("Desk")
    String desk;

    @Label("SKU")
    String sku;

    @Label("Transaction")
    @Description("The order's transaction, from its method's start to its completion")
    @Timespan(Timespan.NANOSECONDS)
    long transaction;

    /** A started section, or {@code null} when no recording wants them. */
    static BenchSection begin(String desk, String sku) {
        if (!TYPE.isEnabled()) {
            return null;
        }
        BenchSection section = new BenchSection();
        section.desk = desk;
        section.sku = sku;
        section.begin();
        return section;
    }

    /** Ends {@code section} (if any) with the transaction's time. */
    static void end(BenchSection section, long transactionNanos) {
        if (section != null) {
            section.end();
            section.transaction = transactionNanos;
            section.commit();
        }
    }
}
