package dev.distlock.spi;

import java.net.InetAddress;
import java.util.Optional;

/**
 * The name a server goes by in the lock store: kept beside each of its holders, so that an operator
 * asking who holds a lock ({@code DistributedLocks.inspect}, a forced release's log, a lock's span)
 * reads a server's name instead of a client id or a session. Set with {@code distlock.node-name}
 * (or {@code DistributedLocks.builder(...).nodeName(...)}); by default the host's name, which two
 * servers on one host share, so give each its own there ({@code -Ddistlock.node-name=shop-1}).
 */
public final class NodeName {

    /** The MicroProfile Config key. */
    public static final String KEY = "distlock.node-name";
    /** The longest name kept: the database backend's column width. */
    public static final int MAX_LENGTH = 64;

    private static volatile String host;

    private NodeName() {
    }

    /**
     * This host's name: {@code HOSTNAME} (as containers and most shells set it), else
     * {@code COMPUTERNAME} (Windows), else what the JVM resolves for the local host, cut to
     * {@link #MAX_LENGTH}; {@code unknown-host} when none answers. Looked up once.
     */
    public static String ofThisHost() {
        String known = host;
        if (known == null) {
            known = lookUpHost();
            host = known;
        }
        return known;
    }

    private static String lookUpHost() {
        for (String variable : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            Optional<String> named = usable(System.getenv(variable));
            if (named.isPresent()) {
                return named.get();
            }
        }
        try {
            return usable(InetAddress.getLocalHost().getHostName()).orElse("unknown-host");
        } catch (Exception | LinkageError e) {
            return "unknown-host";
        }
    }

    private static Optional<String> usable(String name) {
        if (name == null || name.isBlank()) {
            return Optional.empty();
        }
        String stripped = name.strip();
        stripped = stripped.length() > MAX_LENGTH ? stripped.substring(0, MAX_LENGTH) : stripped;
        return problem(stripped) == null ? Optional.of(stripped) : Optional.empty();
    }

    /**
     * {@code name} if it can be kept as a node name: 1 to {@link #MAX_LENGTH} characters, none of
     * them a control character or a whitespace other than a space, no leading or trailing space.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static String check(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException("a node name " + problem + ", was '" + name + "'");
        }
        return name;
    }

    private static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "must not be empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "must have at most " + MAX_LENGTH + " characters (it had " + name.length() + ")";
        }
        if (!name.equals(name.strip())) {
            return "must not start or end with a space";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c) || (Character.isWhitespace(c) && c != ' ')) {
                return "must not hold control characters or line breaks";
            }
        }
        return null;
    }
}
