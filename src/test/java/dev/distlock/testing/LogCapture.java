package dev.distlock.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Everything the JVM logs while open, at every level, however it was logged: java.util.logging
 * directly, {@link System.Logger} (whose default backend is java.util.logging), SLF4J (bound to
 * java.util.logging on the test class path by slf4j-jdk14, which Redisson, Netty and Weld use),
 * and whatever is printed to {@code System.out} and {@code System.err}. Logger levels are opened
 * to {@code ALL} for the duration, so debug output counts too, and put back on close.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger root = Logger.getLogger("");
    private final Level rootLevel = root.getLevel();
    private final Map<Handler, Level> handlerLevels = new HashMap<>();
    private final List<String> records = new ArrayList<>();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final SimpleFormatter formatter = new SimpleFormatter();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            StringBuilder text = new StringBuilder();
            text.append(record.getLevel()).append(' ').append(record.getLoggerName()).append(": ")
                    .append(record.getMessage()); // the pattern as logged
            if (record.getParameters() != null) {
                text.append(" | parameters ").append(Arrays.deepToString(record.getParameters()));
            }
            try {
                text.append(" | formatted ").append(formatter.formatMessage(record));
            } catch (RuntimeException unformattable) {
                text.append(" | unformattable ").append(unformattable);
            }
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace, true));
                text.append(" | thrown ").append(trace);
            }
            synchronized (records) {
                records.add(text.toString());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture() {
        handler.setLevel(Level.ALL);
        for (Handler existing : root.getHandlers()) {
            // The console handler would print all of it again (into the captured System.err, too).
            handlerLevels.put(existing, existing.getLevel());
            existing.setLevel(Level.OFF);
        }
        root.addHandler(handler);
        root.setLevel(Level.ALL);
        System.setOut(new PrintStream(new Copy(printed), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Copy(printed), true, StandardCharsets.UTF_8));
    }

    public static LogCapture start() {
        return new LogCapture();
    }

    /** Every log record so far, each as pattern, parameters, formatted message and stack trace. */
    public List<String> records() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** What was printed to System.out and System.err so far. */
    public String printed() {
        synchronized (printed) {
            return printed.toString(StandardCharsets.UTF_8);
        }
    }

    /** Records and printed output, as one text to search. */
    public String all() {
        return String.join("\n", records()) + "\n" + printed();
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
        root.removeHandler(handler);
        root.setLevel(rootLevel);
        handlerLevels.forEach(Handler::setLevel);
    }

    /** Keeps what is printed; it is not passed on to the console while capturing. */
    private static final class Copy extends OutputStream {
        private final ByteArrayOutputStream copy;

        Copy(ByteArrayOutputStream copy) {
            this.copy = copy;
        }

        @Override
        public void write(int b) {
            synchronized (copy) {
                copy.write(b);
            }
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            synchronized (copy) {
                copy.write(bytes, offset, length);
            }
        }
    }
}
