package dev.distlock;

/**
 * The calls of a {@link Combined} method that were waiting for the same lock in this JVM, handed
 * together to its batch method, which runs once for all of them, holding the lock: in one
 * transaction if it is {@code @Transactional}, with one fencing token. The batch method answers
 * each call — {@link Call#complete(Object)} or {@link Call#fail(Throwable)} — and each caller gets
 * its own answer once the batch method has returned (and its transaction has committed). If the
 * batch method throws, or its transaction does not commit, every caller of the batch gets a
 * {@link CombinedCallFailedException} instead, whatever it was answered: nothing of the batch took
 * effect. A call left unanswered fails with {@link IllegalStateException}.
 *
 * @param <R> what the combined method returns to each caller ({@link Void} for {@code void})
 */
public interface Batch<R> extends Iterable<Batch.Call<R>> {

    /** How many calls the batch serves, at least 1. */
    int size();

    /** One caller's call in a batch. */
    interface Call<R> {

        /** The arguments the caller passed, in the combined method's parameter order; never {@code null}. */
        Object[] arguments();

        /**
         * The argument at {@code index}, as the caller passed it.
         *
         * @throws IndexOutOfBoundsException when the method has no such parameter
         */
        @SuppressWarnings("unchecked")
        default <T> T argument(int index) {
            return (T) arguments()[index];
        }

        /** Answers the call with {@code result}, delivered to its caller once the batch has taken effect. */
        void complete(R result);

        /**
         * Answers the call with {@code failure}, thrown to its caller (unchanged, checked or not)
         * once the batch has taken effect: this call alone fails, e.g. sold out.
         */
        void fail(Throwable failure);
    }
}
