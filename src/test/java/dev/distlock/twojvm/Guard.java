package dev.distlock.twojvm;

import java.util.Locale;

/** What guards a contender's critical section. */
public enum Guard {

    /** {@code locks.exclusive("counter")}: one holder across every JVM. */
    DISTLOCK("with distlock"),
    /** A {@code ReentrantLock} in each JVM, as {@code synchronized} would be: one holder per JVM. */
    LOCAL("with a lock per JVM"),
    /** Nothing. */
    NONE("without lock");

    private final String description;

    Guard(String description) {
        this.description = description;
    }

    /** For people: {@code with distlock}, {@code without lock}. */
    public String description() {
        return description;
    }

    /** How the guard is passed on a contender's command line. */
    String argument() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Guard fromArgument(String argument) {
        for (Guard guard : values()) {
            if (guard.argument().equals(argument)) {
                return guard;
            }
        }
        throw new IllegalArgumentException("guard must be distlock, local or none, was " + argument);
    }
}
