package dev.distlock.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Reads durations from configuration: ISO-8601 ({@code PT5S}) or plain milliseconds ({@code 5000}). */
public final class Durations {

    private Durations() {
    }

    /**
     * @return the duration in milliseconds; {@code -1} stays {@code -1} (forever / watchdog)
     * @throws IllegalArgumentException saying which forms are accepted
     */
    public static long parseMillis(String text) {
        String value = text.strip();
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException notMillis) {
            try {
                return Duration.parse(value).toMillis();
            } catch (DateTimeParseException | ArithmeticException notIso) {
                throw new IllegalArgumentException("'" + text + "' is neither milliseconds (5000) nor an ISO-8601 duration (PT5S)");
            }
        }
    }
}
