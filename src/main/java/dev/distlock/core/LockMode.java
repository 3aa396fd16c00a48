package dev.distlock.core;

/** The three kinds of lock, and the annotation that asks for each. */
public enum LockMode {
    EXCLUSIVE("@Locked", "lock"),
    READ("@ReadLocked", "rw"),
    WRITE("@WriteLocked", "rw");

    private final String annotation;
    private final String namespace;

    LockMode(String annotation, String namespace) {
        this.annotation = annotation;
        this.namespace = namespace;
    }

    /** How the annotation is written in messages, e.g. {@code @Locked}. */
    public String annotation() {
        return annotation;
    }

    /**
     * The part of the Redis key that keeps exclusive locks and read-write locks apart: they are
     * different Redis data structures and must never share a key.
     */
    String namespace() {
        return namespace;
    }
}
