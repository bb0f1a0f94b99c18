package io.github.incrementalrebalance.testkit;

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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * Key and trust stores made at test time with the JDK's {@code keytool}: a self-signed key pair for the broker and one
 * for its client, each trusted by the other (mutual TLS), as PKCS12 stores and, for the client, as PEM files the way
 * Spring Boot's SSL bundles take them.
 */
public final class TestCertificates {

	private static final String PASSWORD = "test-secret";

	private final Path directory;

	private TestCertificates(Path directory) {
		this.directory = directory;
	}

	/**
	 * Make the stores.
	 * @param directory where they go
	 * @return the certificates
	 */
	public static TestCertificates create(Path directory) {
		TestCertificates certificates = new TestCertificates(directory);
		certificates.keyPair("broker", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1");
		certificates.keyPair("client", "CN=incremental-rebalance-test-client", null);
		certificates.trust("broker");
		certificates.trust("client");
		certificates.clientPem();
		return certificates;
	}

	/**
	 * What the broker's SSL listener needs: its key store, a trust store that holds the client, client
	 * authentication required.
	 * @return the broker settings
	 */
	public Map<String, String> brokerConfig() {
		return Map.of(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, store("broker").toString(),
				SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, PASSWORD, SslConfigs.SSL_KEY_PASSWORD_CONFIG, PASSWORD,
				SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12",
				SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore().toString(),
				SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PASSWORD, SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12",
				"ssl.client.auth", "required");
	}

	/**
	 * What a client needs to reach the broker's SSL listener with its own certificate.
	 * @return the client settings, without bootstrap
	 */
	public Map<String, Object> clientConfig() {
		return Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
				SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, store("client").toString(),
				SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, PASSWORD, SslConfigs.SSL_KEY_PASSWORD_CONFIG, PASSWORD,
				SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12",
				SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore().toString(),
				SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PASSWORD, SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
	}

	/**
	 * The client's certificate, PEM.
	 * @return the file
	 */
	public Path clientCertificatePem() {
		return this.directory.resolve("client.crt");
	}

	/**
	 * The client's private key, PKCS#8 PEM.
	 * @return the file
	 */
	public Path clientPrivateKeyPem() {
		return this.directory.resolve("client.key");
	}

	/**
	 * The broker's certificate, PEM: what a client trusts.
	 * @return the file
	 */
	public Path brokerCertificatePem() {
		return this.directory.resolve("broker.crt");
	}

	private Path store(String name) {
		return this.directory.resolve(name + ".p12");
	}

	private Path truststore() {
		return this.directory.resolve("truststore.p12");
	}

	private void keyPair(String name, String subject, String extension) {
		List<String> command = new ArrayList<>(List.of("-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize",
				"2048", "-validity", "2", "-dname", subject, "-keystore", store(name).toString(), "-storetype",
				"PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD));
		if (extension != null) {
			command.addAll(List.of("-ext", extension));
		}
		keytool(command);
		keytool(List.of("-exportcert", "-rfc", "-alias", name, "-keystore", store(name).toString(), "-storepass",
				PASSWORD, "-file", this.directory.resolve(name + ".crt").toString()));
	}

	private void trust(String name) {
		keytool(List.of("-importcert", "-noprompt", "-alias", name, "-file",
				this.directory.resolve(name + ".crt").toString(), "-keystore", truststore().toString(), "-storetype",
				"PKCS12", "-storepass", PASSWORD));
	}

	private void clientPem() {
		try (InputStream in = Files.newInputStream(store("client"))) {
			KeyStore store = KeyStore.getInstance("PKCS12");
			store.load(in, PASSWORD.toCharArray());
			Key key = store.getKey("client", PASSWORD.toCharArray());
			String pem = "-----BEGIN PRIVATE KEY-----\n"
					+ Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
					+ "\n-----END PRIVATE KEY-----\n";
			Files.writeString(clientPrivateKeyPem(), pem, StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Could not read the client's key", ex);
		}
	}

	private static void keytool(List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.addAll(arguments);
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(1, TimeUnit.MINUTES) || process.exitValue() != 0) {
				throw new IllegalStateException("keytool " + arguments.get(0) + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
