package dev.distlock.security;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Everything a failure would show anyone: its printed stack trace, with every cause and suppressed one. */
final class Leaks {

    private Leaks() {
    }

    static String printed(Throwable failure) {
        StringWriter out = new StringWriter();
        failure.printStackTrace(new PrintWriter(out, true));
        return out.toString();
    }

    static void assertNotIn(String text, String secret, String where) {
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("an empty secret is in everything");
        }
        int at = text.indexOf(secret);
        if (at >= 0) {
            int from = Math.max(0, at - 200);
            throw new AssertionError("the secret appears in " + where + ": ..."
                    + text.substring(from, Math.min(text.length(), at + secret.length() + 200)) + "...");
        }
    }
}
