package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What is wrong with a deployment, each with a message that names the class, the method, the
 * member or key and the value; the extension fails the deployment with them. Added to from
 * container lifecycle events, which Weld may fire from several deployment threads.
 */
final class Problems {

    private final List<LockDefinitionException> found = Collections.synchronizedList(new ArrayList<>());

    void add(LockDefinitionException problem) {
        found.add(problem);
    }

    /** Runs {@code check}; what it throws becomes a problem instead. */
    void collect(Runnable check) {
        try {
            check.run();
        } catch (LockDefinitionException e) {
            found.add(e);
        }
    }

    /** The problems found so far, handed over once. */
    List<LockDefinitionException> take() {
        synchronized (found) {
            List<LockDefinitionException> taken = List.copyOf(found);
            found.clear();
            return taken;
        }
    }
}
