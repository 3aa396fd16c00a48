package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.spi.LockPolicy;

import dev.distlock.LockMode;
import dev.distlock.DistributedLocks;
import dev.distlock.LockDefinitionException;
import dev.distlock.OnTimeout;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A policy checks its own values, and its messages name the annotation member and the method. */
class LockPolicyTest {

    private static final String SITE = "Shop.order(String,int)";

    @Test
    void waitTimeBelowMinusOneIsRejected() {
        LockDefinitionException e = assertThrows(LockDefinitionException.class,
                () -> new LockPolicy(SITE, LockMode.EXCLUSIVE, -5, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL));
        assertEquals("@Locked.waitTime on Shop.order(String,int): must be >= -1 (-1 waits forever, 0 tries once), was -5",
                e.getMessage());
    }

    @Test
    void leaseTimeZeroIsRejected() {
        LockDefinitionException e = assertThrows(LockDefinitionException.class,
                () -> new LockPolicy(SITE, LockMode.WRITE, 0, 0, OnTimeout.FAIL));
        assertEquals("@WriteLocked.leaseTime on Shop.order(String,int): must be -1 (watchdog) or > 0, was 0",
                e.getMessage());
    }

    @Test
    void leaseTimeBelowMinusOneIsRejected() {
        LockDefinitionException e = assertThrows(LockDefinitionException.class,
                () -> new LockPolicy(SITE, LockMode.READ, 0, -2, OnTimeout.FAIL));
        assertEquals("@ReadLocked.leaseTime on Shop.order(String,int): must be -1 (watchdog) or > 0, was -2",
                e.getMessage());
    }

    @Test
    void theBoundariesAreValid() {
        assertDoesNotThrow(() -> new LockPolicy(SITE, LockMode.EXCLUSIVE, LockPolicy.WAIT_FOREVER, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL));
        assertDoesNotThrow(() -> new LockPolicy(SITE, LockMode.EXCLUSIVE, 0, 1, OnTimeout.SKIP));
    }

    @Test
    void programmaticDurationsAreCheckedWhereTheyAreSet() {
        DistributedLocks locks = RedisLocks.builder(() -> {
            throw new AssertionError("an invalid duration must fail before Redis is asked");
        }).build();

        IllegalArgumentException negativeWait = assertThrows(IllegalArgumentException.class,
                () -> locks.exclusive("stock").waitTime(Duration.ofMillis(-5)));
        assertTrue(negativeWait.getMessage().contains("waitForever()"), negativeWait.getMessage());
        assertThrows(IllegalArgumentException.class, () -> locks.exclusive("stock").leaseTime(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> locks.exclusive("stock").leaseTime(Duration.ofMillis(-1)));
        // Under a millisecond is rounded up, not down to the invalid 0.
        assertDoesNotThrow(() -> locks.exclusive("stock").leaseTime(Duration.ofNanos(500)));
    }
}
