package dev.distlock.internal.core;

import dev.distlock.LockKey;

import java.lang.reflect.Method;
import java.util.Arrays;

/** Methods that key templates are bound to in the unit tests; never called. */
@SuppressWarnings("unused")
final class SampleShop {

    record Customer(String id) {
    }

    record Order(Customer customer, int quantity) {
    }

    /** A bean with getters, not a record. */
    public static final class Account {
        private final long number;
        private final boolean active;

        public Account(long number, boolean active) {
            this.number = number;
            this.active = active;
        }

        public long getNumber() {
            return number;
        }

        public boolean isActive() {
            return active;
        }
    }

    /** Keeps {@code Object.toString()}: every instance would render as a different key. */
    static final class Opaque {
    }

    void reserve(String sku, int quantity) {
    }

    void place(Order order) {
    }

    void open(Account account) {
    }

    void inspect(Opaque opaque) {
    }

    void reserveAll(String[] skus) {
    }

    void restock(String region, @LockKey String sku, int quantity, @LockKey long shelf) {
    }

    static Method method(String name) {
        return Arrays.stream(SampleShop.class.getDeclaredMethods())
                .filter(method -> method.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no method " + name));
    }
}
