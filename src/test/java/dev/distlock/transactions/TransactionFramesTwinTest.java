package dev.distlock.transactions;

import dev.distlock.internal.cdi.TransactionFrame;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The twin of {@link TransactionShapesTest#aLockedCalleeInsideAnAsynchronousTransactionLeavesNoOwnerOnItsThread}:
 * without distlock's transaction frames — the interceptors just outside the transaction manager's,
 * which put back what a {@code @Transactional} invocation noted as open on its thread — the
 * transaction that an asynchronous {@code @Transactional} method left suspended is still taken
 * for the thread's, and a later, unrelated caller on that thread enters the lock that a locked
 * callee took in it.
 */
class TransactionFramesTwinTest {

    /** Switches distlock's transaction frames off. */
    public static class WithoutFrames implements Extension {
        void veto(@Observes ProcessAnnotatedType<? extends TransactionFrame> frame) {
            frame.veto();
        }
    }

    @Test
    void withoutTheFramesALaterCallerOnTheThreadEntersTheAsynchronousCallsLock() throws Exception {
        try (DistlockWeld weld = Narayana.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("frames-twin")),
                List.of(new WithoutFrames()), TransactionShapesTest.Shop.class, TransactionShapesTest.Later.class,
                TransactionShapesTest.Repository.class, TransactionShapesTest.Audit.class)) {
            TransactionShapesTest.Shop shop = weld.bean(TransactionShapesTest.Shop.class);
            CompletableFuture<String> done = new CompletableFuture<>();
            CompletionStage<String> later = weld.bean(TransactionShapesTest.Later.class).takeThenFinishLater("twin", done);
            assertEquals("touched", shop.touch("twin"), "the later caller entered the lock the unfinished call holds");
            done.complete("reserved");
            assertEquals("reserved", later.toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
    }
}
