package dev.distlock.testkit.backend;

import dev.distlock.spi.LockBackend;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A connection to the store on which the next grant of a lock is made by the store while its answer
 * is lost on the way back ({@link LockBackendContract#connectLosingTheAnswerToTheNextGrantOf}), and
 * how the contract learns that it was: so that the case cannot pass because no grant was made, or
 * because its answer came after all.
 *
 * @param backend the connection, as {@link LockBackendContract#connect()} makes one; closed by the
 *                engine it is given to
 * @param lost    whether the store granted the lock and its answer was lost; asked once the
 *                acquisition has failed
 */
public record LostGrantAnswer(LockBackend backend, BooleanSupplier lost) {

    public LostGrantAnswer {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(lost, "lost");
    }
}
