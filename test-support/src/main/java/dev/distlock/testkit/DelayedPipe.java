package dev.distlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One direction of a {@link DelayingProxy} connection. A reader thread takes what arrives, as it
 * arrives, and stamps each chunk with when it is due: its arrival plus the delay. A writer thread
 * sends each chunk once it is due. So a chunk that arrives while an earlier one waits is not held
 * back by it beyond its own due time: the delay is a pipe's latency, not a per-message cost. The
 * reader never waits for the writer, so bandwidth is not limited either.
 *
 * <p>Both threads sit blocked in I/O or on the queue when nothing flows; the writer parks until the
 * next chunk is due (Linux wakes a parked thread some 50–60 µs late, which is the pipe's precision).
 */
final class DelayedPipe {

    private static final int CHUNK_BYTES = 64 * 1024;
    /** Tells the writer that the connection is gone: nothing more to deliver, at once. */
    private static final Chunk BROKEN = new Chunk(null, 0);

    private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    private final Socket from;
    private final Socket to;
    private final InputStream in;
    private final OutputStream out;
    private final long delayNanos;
    private final Consumer<Boolean> ended;
    private final Thread reader;
    private final Thread writer;

    /**
     * @param ended told {@code true} once the end of {@code from}'s stream went on to {@code to},
     *              {@code false} if either socket failed or was closed first
     */
    DelayedPipe(Socket from, Socket to, long delayNanos, String name, Consumer<Boolean> ended) throws IOException {
        this.from = from;
        this.to = to;
        this.in = from.getInputStream();
        this.out = to.getOutputStream();
        this.delayNanos = delayNanos;
        this.ended = ended;
        this.reader = daemon(this::read, name + "-read");
        this.writer = daemon(this::write, name + "-write");
    }

    void start() {
        reader.start();
        writer.start();
    }

    private void read() {
        byte[] buffer = new byte[CHUNK_BYTES];
        try {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                queue.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delayNanos));
            }
            // The end of the stream travels as the bytes do: delayed, after them.
            queue.add(new Chunk(null, System.nanoTime() + delayNanos));
        } catch (IOException e) {
            queue.add(BROKEN);
        }
    }

    private void write() {
        boolean cleanly = false;
        try {
            for (Chunk chunk = queue.take(); chunk != BROKEN; chunk = queue.take()) {
                awaitDue(chunk.dueNanos);
                if (chunk.bytes == null) {
                    to.shutdownOutput();
                    cleanly = true;
                    break;
                }
                out.write(chunk.bytes);
                out.flush();
            }
        } catch (IOException e) {
            // a socket closed or failed: the connection ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // no one interrupts the proxy's threads; if so, end
        }
        ended.accept(cleanly);
    }

    /** Parks until {@code dueNanos}; a spurious wake-up parks again for the rest. */
    private static void awaitDue(long dueNanos) throws InterruptedException {
        for (long wait = dueNanos - System.nanoTime(); wait > 0; wait = dueNanos - System.nanoTime()) {
            LockSupport.parkNanos(wait);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    void join(long deadlineNanos) throws InterruptedException {
        DelayingProxy.joinUntil(reader, deadlineNanos);
        DelayingProxy.joinUntil(writer, deadlineNanos);
    }

    @Override
    public String toString() {
        return "DelayedPipe[" + from.getPort() + " -> " + to.getPort() + "]";
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing is best effort: what is left open ends with the process
        }
    }

    /** @param bytes what arrived; {@code null} for the end of the stream */
    private record Chunk(byte[] bytes, long dueNanos) {
    }
}
