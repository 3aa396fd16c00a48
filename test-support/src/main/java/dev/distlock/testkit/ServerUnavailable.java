package dev.distlock.testkit;

/**
 * A database server of the test kit's own cannot run on this machine (no binaries for its platform,
 * none on the class path, no user to run it as): tests over that database are skipped with this
 * message, not failed. A server that could run but did not start is an {@link IllegalStateException}.
 */
public final class ServerUnavailable extends RuntimeException {

    public ServerUnavailable(String reason) {
        super(reason);
    }
}
