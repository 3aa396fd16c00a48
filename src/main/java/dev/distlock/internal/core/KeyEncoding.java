package dev.distlock.internal.core;

/**
 * The prefix every lock name starts with, checked once: it may not hold a Redis Cluster hash tag.
 * Values are encoded by {@link dev.distlock.KeyBounds#encode}.
 */
final class KeyEncoding {

    private KeyEncoding() {
    }

    static String checkPrefix(String prefix) {
        if (prefix == null || prefix.isBlank()) {
            throw new IllegalArgumentException("distlock.key-prefix must not be blank");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("distlock.key-prefix must not contain '{' or '}' (Redis Cluster hash tags), was '" + prefix + "'");
        }
        return prefix;
    }
}
