package dev.distlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed server certificate made at test time with the JDK's {@code keytool}: the server's
 * PKCS12 key store, the same certificate and key as PEM files for redis-server (OpenSSL), and a
 * PKCS12 trust store holding only the certificate, for the client.
 */
public final class TlsMaterial {

    private final Path directory;
    private final String storePassword;
    private final String trustStorePassword;

    private TlsMaterial(Path directory, String storePassword, String trustStorePassword) {
        this.directory = directory;
        this.storePassword = storePassword;
        this.trustStorePassword = trustStorePassword;
    }

    /**
     * @param directory where the files go (a test's temporary directory)
     * @param san       the subject alternative names, e.g. {@code IP:127.0.0.1,DNS:localhost}
     */
    public static TlsMaterial selfSigned(Path directory, String san) {
        TlsMaterial material = new TlsMaterial(directory, "ks-" + UUID.randomUUID(), "ts-" + UUID.randomUUID());
        material.make(san);
        return material;
    }

    public Path serverKeyStore() {
        return directory.resolve("server.p12");
    }

    public Path certificatePem() {
        return directory.resolve("server-cert.pem");
    }

    public Path privateKeyPem() {
        return directory.resolve("server-key.pem");
    }

    /** A PKCS12 trust store with the server's certificate only. */
    public Path trustStore() {
        return directory.resolve("truststore.p12");
    }

    public String trustStorePassword() {
        return trustStorePassword;
    }

    private void make(String san) {
        keytool("-genkeypair", "-alias", "redis", "-keyalg", "EC", "-groupname", "secp256r1",
                "-sigalg", "SHA256withECDSA", "-dname", "CN=distlock-test-redis", "-ext", "SAN=" + san,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", serverKeyStore().toString(),
                "-storepass", storePassword, "-keypass", storePassword);
        keytool("-exportcert", "-rfc", "-alias", "redis", "-keystore", serverKeyStore().toString(),
                "-storetype", "PKCS12", "-storepass", storePassword, "-file", certificatePem().toString());
        keytool("-importcert", "-noprompt", "-alias", "redis-ca", "-file", certificatePem().toString(),
                "-storetype", "PKCS12", "-keystore", trustStore().toString(), "-storepass", trustStorePassword);
        writePrivateKeyPem();
    }

    /** keytool cannot export a private key; OpenSSL reads PKCS#8 PEM, which is the key's own encoding. */
    private void writePrivateKeyPem() {
        try (InputStream in = Files.newInputStream(serverKeyStore())) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, storePassword.toCharArray());
            Key key = store.getKey("redis", storePassword.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(privateKeyPem(), pem, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + arguments[0] + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + arguments[0] + " failed (" + process.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
