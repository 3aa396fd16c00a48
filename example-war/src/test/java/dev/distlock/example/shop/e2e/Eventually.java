package dev.distlock.example.shop.e2e;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polls until an answer is the one wanted, or the time is up: recovery after an outage takes a moment. */
final class Eventually {

    private static final long POLL_MILLIS = 250;

    private Eventually() {
    }

    /** @return the first answer that matches, or the last one seen when {@code seconds} have passed */
    static ShopHttp.Answer answer(Supplier<ShopHttp.Answer> call, Predicate<ShopHttp.Answer> wanted, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            ShopHttp.Answer answer = call.get();
            if (wanted.test(answer) || System.nanoTime() - deadline > 0) {
                return answer;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Polls {@code condition} every few milliseconds until it holds; fails with {@code what} when {@code within} has passed. */
    static void that(BooleanSupplier condition, String what, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(20);
        }
    }
}
