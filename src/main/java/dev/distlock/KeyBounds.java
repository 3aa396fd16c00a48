package dev.distlock;

/**
 * What keeps a lock key within its bounds: a value from a user cannot reach into another key, nor
 * choose the store's partition, and no key is longer than {@value #MAX_KEY_LENGTH} characters.
 * {@link DistributedLocks#encode(String)} is the same encoding.
 *
 * <p>{@link #encode(String)} escapes {@code :} (which separates a key's parts), <code>{</code> and
 * <code>}</code> (a hash tag in Redis Cluster) and {@code %}, so that the encoding is reversible and
 * two different values never encode alike. An unpaired surrogate becomes {@code %uXXXX}: stores see
 * UTF-8 bytes, in which such a character turns into {@code ?} and would meet a real {@code ?}.
 */
public final class KeyBounds {

    /** The longest key distlock takes; stores allow far longer, but a key this long is a bug, not a lock name. */
    public static final int MAX_KEY_LENGTH = 1024;

    private KeyBounds() {
    }

    /** {@code value} with {@code :}, <code>{</code>, <code>}</code>, {@code %} and unpaired surrogates escaped. */
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

}
