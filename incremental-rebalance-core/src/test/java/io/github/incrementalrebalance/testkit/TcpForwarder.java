package io.github.incrementalrebalance.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local address that forwards TCP connections to another once {@link #open()}ed, and refuses them before: a
 * bootstrap server that comes up after the application started. Kafka clients bootstrap through it, then talk to the
 * broker's advertised address directly.
 */
public final class TcpForwarder implements AutoCloseable {

	private final int port;

	private final String targetHost;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile ServerSocket server;

	/**
	 * @param target where to forward to, {@code host:port}
	 */
	public TcpForwarder(String target) {
		int colon = target.lastIndexOf(':');
		this.targetHost = target.substring(0, colon);
		this.targetPort = Integer.parseInt(target.substring(colon + 1));
		try (ServerSocket probe = new ServerSocket(0)) {
			this.port = probe.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The address to give clients; nothing listens there until {@link #open()}.
	 * @return {@code localhost:port}
	 */
	public String address() {
		return "localhost:" + this.port;
	}

	/**
	 * Start accepting and forwarding connections.
	 */
	public void open() {
		try {
			ServerSocket listening = new ServerSocket();
			listening.setReuseAddress(true);
			listening.bind(new InetSocketAddress("localhost", this.port));
			this.server = listening;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "tcp-forwarder-" + this.port);
		acceptor.setDaemon(true);
		acceptor.start();
	}

	private void accept() {
		ServerSocket listening = this.server;
		while (!listening.isClosed()) {
			try {
				Socket client = listening.accept();
				Socket target = new Socket(this.targetHost, this.targetPort);
				this.sockets.add(client);
				this.sockets.add(target);
				pipe(client, target);
				pipe(target, client);
			}
			catch (IOException ex) {
				// closed, or the target refused: the client sees its connection closed
			}
		}
	}

	private static void pipe(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				in.transferTo(out);
			}
			catch (IOException ex) {
				// one side closed
			}
		}, "tcp-forwarder-pipe");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		ServerSocket listening = this.server;
		if (listening != null) {
			listening.close();
		}
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
