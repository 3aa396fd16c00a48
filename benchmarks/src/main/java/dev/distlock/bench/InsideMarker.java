package dev.distlock.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A 64-bit "inside" marker in a file every child maps: a holder compare-and-sets it from 0 to its
 * token on entry and back on exit, so an overlap of two holders, in any JVMs, is seen without a
 * Redis command (the critical section stays one INCR). Slot 0 is shared; slot 1 + jvm is private.
 */
final class InsideMarker {

    static final int MARKER_BYTES = 4096;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private final MappedByteBuffer buffer;
    private final int jvm;

    private InsideMarker(MappedByteBuffer buffer, int jvm) {
        this.buffer = buffer;
        this.jvm = jvm;
    }

    static InsideMarker open(Path file, int jvm) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new InsideMarker(channel.map(FileChannel.MapMode.READ_WRITE, 0, MARKER_BYTES), jvm);
        }
    }

    /** This child JVM's index, part of its holders' tokens. */
    int jvm() {
        return jvm;
    }

    int sharedSlot() {
        return 0;
    }

    int privateSlot() {
        return 1 + jvm;
    }

    boolean enter(int slot, long token) {
        return LONGS.compareAndSet(buffer, slot * 8, 0L, token);
    }

    boolean exit(int slot, long token) {
        return LONGS.compareAndSet(buffer, slot * 8, token, 0L);
    }
}
