package dev.distlock.memory;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockBackendProvider;

import java.util.Locale;

/**
 * {@code distlock.backend=in-memory}: locks in this JVM's memory, for an application's Weld or
 * unit tests without Redis. Refused outside tests unless {@value TestsOnly#ALLOWED} is {@code true}.
 */
public final class InMemoryBackendProvider implements LockBackendProvider {

    @Override
    public String name() {
        return "in-memory";
    }

    @Override
    public Configured configure(Settings settings) {
        String allowedValue = settings.value(TestsOnly.ALLOWED).orElse("false").toLowerCase(Locale.ROOT);
        if (!allowedValue.equals("true") && !allowedValue.equals("false")) {
            throw new LockDefinitionException("Config " + TestsOnly.ALLOWED + "=" + allowedValue + ": must be true or false");
        }
        InMemoryLockBackend store;
        try {
            store = TestsOnly.store(allowedValue.equals("true"), "Config distlock.backend=in-memory",
                    TestsOnly.applicationLoader());
        } catch (IllegalStateException notATest) {
            throw new LockDefinitionException(notATest.getMessage());
        }
        return new Configured() {
            @Override
            public String describe() {
                return "memory (this JVM only; for tests)";
            }

            @Override
            public LockBackend start(Beans beans) {
                return store; // closing it closes nothing: the JVM's other users keep their locks
            }
        };
    }
}
