package io.github.incrementalrebalance.testkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the fault proxy does to the connections it names by client id, against a server that echoes what it reads:
 * the faults the network tests and the chaos run rely on, each shown to happen, and to heal.
 */
class FaultProxyTests {

	private final ServerSocket echo = echoServer();

	private final FaultProxy proxy = new FaultProxy("localhost:" + this.echo.getLocalPort()).open();

	@AfterEach
	void close() throws IOException {
		this.proxy.close();
		this.echo.close();
	}

	@Test
	void forwardsBothWaysAndKnowsEachConnectionsClientId() throws IOException {
		try (Socket client = connect()) {
			assertThat(roundTrip(client, "a-StreamThread-1-consumer")).isEqualTo("a-StreamThread-1-consumer");
		}
		assertThat(this.proxy.clientIds()).containsExactly("a-StreamThread-1-consumer");
	}

	@Test
	void aDelayHoldsEveryChunkEachWayAndOnlyForTheClientsNamed() throws IOException {
		try (FaultProxy.Fault slow = this.proxy.delay(FaultProxy.clientsStartingWith("a-"), Duration.ofMillis(300));
				Socket slowed = connect(); Socket other = connect()) {
			long started = System.nanoTime();
			roundTrip(slowed, "a-admin");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("300 ms each way")
				.isGreaterThanOrEqualTo(Duration.ofMillis(600));
			started = System.nanoTime();
			roundTrip(other, "b-admin");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("another client's, not held")
				.isLessThan(Duration.ofMillis(500));
		}
	}

	@Test
	void aBlackHoleHoldsTheBytesUntilItHeals() throws IOException {
		try (Socket client = connect()) {
			roundTrip(client, "a-reader");
			FaultProxy.Fault hole = this.proxy.blackHole(FaultProxy.clientsStartingWith("a-"));
			// only the wait for what the hole holds is short: the round trip before it took longer under CI's load
			client.setSoTimeout(500);
			client.getOutputStream().write(frame("a-reader"));
			assertThatExceptionOfType(SocketTimeoutException.class).as("nothing comes back while it holds")
				.isThrownBy(() -> readFrame(client));
			hole.heal();
			client.setSoTimeout(5_000);
			assertThat(readFrame(client)).as("the held bytes, once healed").isEqualTo("a-reader");
		}
	}

	@Test
	void aCutClosesTheConnectionsOfTheClientsNamedAndRefusesNewOnesUntilItHeals() throws IOException {
		try (Socket client = connect()) {
			roundTrip(client, "a-writer");
			try (FaultProxy.Fault cut = this.proxy.cut(FaultProxy.clientsStartingWith("a-"))) {
				client.setSoTimeout(5_000);
				assertThat(client.getInputStream().read()).as("closed by the cut").isEqualTo(-1);
				try (Socket again = connect()) {
					again.setSoTimeout(5_000);
					again.getOutputStream().write(frame("a-writer"));
					assertThat(again.getInputStream().read()).as("a new connection, refused").isEqualTo(-1);
				}
				assertThat(this.proxy.refusedConnections()).isEqualTo(2);
			}
		}
		try (Socket healed = connect()) {
			assertThat(roundTrip(healed, "a-writer")).isEqualTo("a-writer");
		}
	}

	private Socket connect() throws IOException {
		Socket socket = new Socket("localhost", Integer.parseInt(this.proxy.address().split(":")[1]));
		socket.setSoTimeout(5_000);
		return socket;
	}

	/**
	 * Send a request whose header names the client, and read the echo.
	 */
	private static String roundTrip(Socket socket, String clientId) throws IOException {
		socket.getOutputStream().write(frame(clientId));
		return readFrame(socket);
	}

	/**
	 * A Kafka request as far as the proxy reads it: its size, then API key, version, correlation id and the client id
	 * as a string of a two-byte length.
	 */
	private static byte[] frame(String clientId) {
		byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
		int size = 2 + 2 + 4 + 2 + id.length;
		return ByteBuffer.allocate(4 + size)
			.putInt(size)
			.putShort((short) 18)
			.putShort((short) 3)
			.putInt(1)
			.putShort((short) id.length)
			.put(id)
			.array();
	}

	private static String readFrame(Socket socket) throws IOException {
		DataInputStream in = new DataInputStream(socket.getInputStream());
		byte[] request = new byte[in.readInt()];
		in.readFully(request);
		return FaultProxy.clientIdOf(request);
	}

	private static ServerSocket echoServer() {
		try {
			ServerSocket server = new ServerSocket(0);
			Thread acceptor = new Thread(() -> {
				while (!server.isClosed()) {
					try {
						Socket accepted = server.accept();
						Thread echo = new Thread(() -> {
							try (Socket socket = accepted) {
								socket.getInputStream().transferTo(socket.getOutputStream());
							}
							catch (IOException ex) {
								// the other side closed
							}
						});
						echo.setDaemon(true);
						echo.start();
					}
					catch (IOException ex) {
						// closed
					}
				}
			});
			acceptor.setDaemon(true);
			acceptor.start();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
