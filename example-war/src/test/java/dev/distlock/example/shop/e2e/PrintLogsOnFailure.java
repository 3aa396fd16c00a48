package dev.distlock.example.shop.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.function.Supplier;

/** Prints the end of every server's log when a test fails: the test's own message rarely says why a server answered 500. */
final class PrintLogsOnFailure implements TestWatcher {

    private final Supplier<E2eShop> shop;

    PrintLogsOnFailure(Supplier<E2eShop> shop) {
        this.shop = shop;
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        E2eShop current = shop.get();
        if (current != null) {
            System.out.println("[e2e] " + context.getDisplayName() + " failed; server logs:" + current.logs());
        }
    }
}
