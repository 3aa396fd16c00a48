package dev.distlock.internal.core;

/**
 * Encodes values from method arguments before they become part of a Redis key, so that user
 * input can neither reach into another key ({@code :}) nor choose the Redis Cluster hash slot
 * ({@code {}} is a hash tag there). {@code %} is escaped too, so the encoding is reversible and
 * two different values never encode alike. An unpaired surrogate becomes {@code %uXXXX}: Redis sees
 * UTF-8 bytes, in which such a character turns into {@code ?} and would meet a real {@code ?}.
 */
public final class KeyEncoding {

    /** Redis allows far longer keys, but a key this long is a bug, not a lock name. */
    public static final int MAX_KEY_LENGTH = 1024;

    private KeyEncoding() {
    }

    public static String encode(String value) {
        StringBuilder out = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            String escape = switch (c) {
                case '%' -> "%25";
                case ':' -> "%3A";
                case '{' -> "%7B";
                case '}' -> "%7D";
                default -> Character.isSurrogate(c) && !pairedSurrogate(value, i) ? String.format("%%u%04X", (int) c) : null;
            };
            if (escape != null && out == null) {
                out = new StringBuilder(value.length() + 8).append(value, 0, i);
            }
            if (out != null) {
                if (escape != null) {
                    out.append(escape);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? value : out.toString();
    }

    private static boolean pairedSurrogate(String value, int i) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(value.charAt(i - 1));
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
