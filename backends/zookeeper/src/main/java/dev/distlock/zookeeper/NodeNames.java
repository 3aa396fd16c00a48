package dev.distlock.zookeeper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Lock names as ZooKeeper node names, one to one: {@code /} (a path separator there), {@code %}
 * (the escape) and the characters ZooKeeper refuses in a path (controls, surrogates, private use,
 * specials) become {@code %XX} of their UTF-8 bytes; everything else stays as it is.
 */
final class NodeNames {

    private NodeNames() {
    }

    static String encode(String name) {
        StringBuilder encoded = null;
        for (int i = 0; i < name.length(); ) {
            int codePoint = name.codePointAt(i);
            int width = Character.charCount(codePoint);
            if (allowed(codePoint)) {
                if (encoded != null) {
                    encoded.appendCodePoint(codePoint);
                }
            } else {
                if (encoded == null) {
                    encoded = new StringBuilder(name.length() + 16).append(name, 0, i);
                }
                for (byte b : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8)) {
                    encoded.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
                            .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
                }
            }
            i += width;
        }
        String result = encoded == null ? name : encoded.toString();
        // "." and ".." are not node names.
        return result.equals(".") || result.equals("..") ? result.replace(".", "%2E") : result;
    }

    /** The inverse of {@link #encode}. */
    static String decode(String encoded) {
        if (encoded.indexOf('%') < 0) {
            return encoded;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static boolean allowed(int c) {
        return c != '/' && c != '%'
                && c > 0x1F && !(c >= 0x7F && c <= 0x9F)
                && !(c >= 0xD800 && c <= 0xF8FF)
                && !(c >= 0xFFF0 && c <= 0xFFFF)
                && c <= 0xFFFF;
    }
}
