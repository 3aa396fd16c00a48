package dev.distlock.id;

import java.time.LocalDate;
import java.util.Objects;

/**
 * One number of a {@link DailySerials} sequence: the day it belongs to, its serial within that day
 * (from 1) and its text as the configured format writes it, e.g. {@code 20261124-000042}.
 */
public record DailySerial(LocalDate day, long serial, String text) {

    public DailySerial {
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(text, "text");
        if (serial < 1) {
            throw new IllegalArgumentException("a serial starts at 1, was " + serial);
        }
    }

    /** The text, e.g. {@code 20261124-000042}. */
    @Override
    public String toString() {
        return text;
    }
}
