package dev.distlock.redis;

import org.redisson.client.RedisAuthRequiredException;
import org.redisson.client.RedisWrongPasswordException;

import javax.net.ssl.SSLException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;

/**
 * Why a connection to Redis failed, in words that name the setting to look at. Built from the
 * kinds of the exceptions in the cause chain and fixed text, never from Redis' own reply or a
 * configured value: no credential can end up in the message.
 */
final class ConnectFailure {

    private ConnectFailure() {
    }

    /** @return e.g. "refused the credentials (authentication failed: ...)", to follow "Redis (where) " */
    static String explain(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage() == null ? "" : cause.getMessage();
            if (cause instanceof RedisWrongPasswordException || message.startsWith("WRONGPASS")
                    || message.startsWith("ERR invalid password") || message.startsWith("ERR AUTH")) {
                return "refused the credentials (authentication failed: wrong username or password, or the user "
                        + "is disabled); locked methods fail until it accepts them. Check distlock.redis.username "
                        + "and distlock.redis.password (or the user:password in the address).";
            }
            if (cause instanceof RedisAuthRequiredException || message.startsWith("NOAUTH")) {
                return "requires authentication (NOAUTH) and no password was sent; locked methods fail until "
                        + "it is. Set distlock.redis.password (and distlock.redis.username for an ACL user).";
            }
            if (cause instanceof SSLException || cause instanceof CertificateException) {
                return "TLS handshake failed: " + tlsReason(cause) + "; locked methods fail until it succeeds.";
            }
        }
        return "cannot be reached: " + failure.getClass().getSimpleName() + "; locked methods fail until it answers. "
                + "Check distlock.redis.address and that Redis is up.";
    }

    private static String tlsReason(Throwable ssl) {
        for (Throwable cause = ssl; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage() == null ? "" : cause.getMessage();
            if (cause instanceof CertPathBuilderException || message.contains("PKIX path building failed")) {
                return "the server's certificate is not trusted. Set distlock.redis.ssl-truststore to a trust store "
                        + "holding it or the CA that signed it";
            }
            if (message.startsWith("No subject alternative") || message.startsWith("No name matching")) {
                return "the server's certificate does not name the host in distlock.redis.address (" + message
                        + "). Connect by a name the certificate holds, or set distlock.redis.ssl-verification=ca-only";
            }
            if (message.contains("Unrecognized SSL message") || cause.getClass().getSimpleName().equals("NotSslRecordException")) {
                return "the server did not answer in TLS: does it listen for TLS on that port?";
            }
            if (cause.getClass().getSimpleName().equals("SslHandshakeTimeoutException")) {
                return "the server did not complete it within distlock.redis.connect-timeout (" + message
                        + "): does it listen for TLS on that port?";
            }
        }
        return ssl.getClass().getSimpleName() + ": " + ssl.getMessage();
    }
}
