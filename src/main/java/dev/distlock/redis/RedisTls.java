package dev.distlock.redis;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import dev.distlock.spi.LockBackendProvider.Settings;
import org.redisson.client.NettyHook;
import org.redisson.config.SslVerificationMode;
import dev.distlock.LockDefinitionException;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Optional;

import static dev.distlock.redis.RedisSettings.PREFIX;
import static dev.distlock.redis.RedisSettings.invalid;
import static dev.distlock.redis.RedisSettings.withoutCredentials;

/** The TLS part of {@code distlock.redis.*}: trusting a {@code rediss://} server, and bounding its handshake. */
final class RedisTls {

    private RedisTls() {
    }

    /**
     * {@code ssl-truststore} (path or URL), {@code ssl-truststore-password} and
     * {@code ssl-verification}: what it takes to trust a {@code rediss://} server whose certificate
     * the JVM's default trust store does not know. The trust store is opened here, as Redisson will
     * open it, so a missing file or a wrong password fails the deployment, not the first lock.
     */
    static void configure(org.redisson.config.Config redisson, Settings config, boolean tls) {
        Optional<String> location = string(config, "ssl-truststore");
        Optional<String> password = config.raw(PREFIX + "ssl-truststore-password")
                .filter(p -> !p.isEmpty());
        Optional<String> verification = string(config, "ssl-verification");
        if (location.isEmpty() && password.isPresent()) {
            throw new LockDefinitionException("Config " + PREFIX + "ssl-truststore-password is set, but "
                    + PREFIX + "ssl-truststore is not: name the trust store it opens");
        }
        if (location.isPresent()) {
            if (!tls) {
                throw invalid("ssl-truststore", withoutCredentials(location.get()),
                        "is set, but no address uses rediss://, so nothing would be encrypted; write rediss:// in "
                                + PREFIX + "address (or addresses)");
            }
            URL url = truststoreUrl(location.get());
            checkTruststore(url, location.get(), password.orElse(null));
            redisson.setSslTruststore(url);
            password.ifPresent(redisson::setSslTruststorePassword);
        }
        if (verification.isPresent()) {
            String mode = verification.get().toLowerCase(Locale.ROOT);
            if (!tls) {
                throw invalid("ssl-verification", mode, "is set, but no address uses rediss://");
            }
            redisson.setSslVerificationMode(switch (mode) {
                case "strict" -> SslVerificationMode.STRICT;
                case "ca-only" -> SslVerificationMode.CA_ONLY;
                default -> throw invalid("ssl-verification", mode,
                        "must be strict (the certificate must be trusted and name the host; the default) "
                                + "or ca-only (trusted, whatever host it names)");
            });
        }
    }

    /** A path, or a URL when it starts with a scheme of two or more letters (not C:\...). */
    private static URL truststoreUrl(String location) {
        try {
            if (location.matches("^[A-Za-z][A-Za-z0-9+.-]+:.*")) {
                URI uri = new URI(location);
                if ("file".equalsIgnoreCase(uri.getScheme())) {
                    checkFile(Path.of(uri), location);
                }
                return uri.toURL();
            }
            Path path = Path.of(location).toAbsolutePath();
            checkFile(path, location);
            return path.toUri().toURL();
        } catch (URISyntaxException | MalformedURLException | IllegalArgumentException e) { // InvalidPathException too
            throw invalid("ssl-truststore", withoutCredentials(location), "is neither a file path nor a URL ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    private static void checkFile(Path path, String location) {
        if (!Files.isRegularFile(path)) {
            throw invalid("ssl-truststore", location, "no such file: " + path.toAbsolutePath());
        }
        if (!Files.isReadable(path)) {
            throw invalid("ssl-truststore", location, "cannot be read by this process: " + path.toAbsolutePath());
        }
    }

    /** Loads the store as Redisson does (the JVM's default key store type), and wants a certificate in it. */
    private static void checkTruststore(URL url, String location, String password) {
        String shown = withoutCredentials(location);
        KeyStore store;
        try (InputStream in = url.openStream()) {
            store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(in, password == null ? null : password.toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            // The JDK's messages name the problem ("keystore password was incorrect"), never the
            // password; one about a URL may repeat the URL, so its user:password goes.
            String detail = String.valueOf(e.getMessage()).replace(location, shown);
            if (url.getUserInfo() != null) {
                detail = detail.replace(url.getUserInfo(), "***");
            }
            String hint = e.getCause() instanceof UnrecoverableKeyException
                    ? " (is " + PREFIX + "ssl-truststore-password right?)" : "";
            throw invalid("ssl-truststore", shown, "cannot be opened as a " + KeyStore.getDefaultType()
                    + " trust store: " + e.getClass().getSimpleName() + ": " + detail + hint);
        }
        try {
            for (Enumeration<String> aliases = store.aliases(); aliases.hasMoreElements(); ) {
                if (store.getCertificate(aliases.nextElement()) != null) {
                    return;
                }
            }
        } catch (KeyStoreException e) {
            throw new IllegalStateException("a loaded key store refused to list its entries", e);
        }
        throw invalid("ssl-truststore", shown, "holds no certificate"
                + (password == null ? " that can be read without a password: set " + PREFIX + "ssl-truststore-password" : ""));
    }

    private static Optional<String> string(Settings config, String key) {
        return config.raw(PREFIX + key).map(String::strip).filter(value -> !value.isEmpty());
    }

    /**
     * Bounds the TLS handshake by {@code connect-timeout}. Redisson leaves it at Netty's 10 s, and a
     * server that takes the TCP connection but never completes the handshake (a plain Redis port
     * behind {@code rediss://}) held the first locked call for 30 s: three connection attempts.
     */
    record HandshakeTimeout(long millis) implements NettyHook {
        @Override
        public void afterBoostrapInitialization(Bootstrap bootstrap) {
        }

        @Override
        public void afterChannelInitialization(Channel channel) {
            SslHandler ssl = channel.pipeline().get(SslHandler.class);
            if (ssl != null) {
                ssl.setHandshakeTimeoutMillis(millis);
            }
        }
    }
}
