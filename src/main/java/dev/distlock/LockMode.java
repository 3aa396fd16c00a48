package dev.distlock;

/** The three kinds of lock, and the annotation that asks for each. */
public enum LockMode {
    EXCLUSIVE("@Locked"),
    READ("@ReadLocked"),
    WRITE("@WriteLocked");

    private final String annotation;

    LockMode(String annotation) {
        this.annotation = annotation;
    }

    /** How the annotation is written in messages, e.g. {@code @Locked}. */
    public String annotation() {
        return annotation;
    }

}
