package io.github.incrementalrebalance.testkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A TCP proxy between Kafka clients and a broker that injects the faults of a production network: added latency, a
 * black hole (bytes held, as a partition holds them, until it heals) and cut connections (closed, and new ones
 * refused, until healed). Faults apply to the connections of the clients they name: the proxy reads the client id
 * from the first request of each connection (a plaintext listener only), so one proxy can cut the control topic's
 * clients of a member while its Kafka Streams clients go on, or cut a whole member by its client id prefix.
 * <p>
 * Clients bootstrap through it and stay on it only when the broker advertises it: {@link KafkaBroker#withFaultProxy()}
 * gives the broker a listener advertised at the proxy. In front of a cluster the proxy has a port per broker, and a
 * fault hits the named clients' connections to every broker. Used alone, it is a bootstrap address that comes up after
 * the application started ({@link #open()}): the clients then talk to the broker's own address.
 * <p>
 * Threads: faults are applied and healed by the test's thread; each connection has a thread per direction that reads
 * and one that writes.
 */
public final class FaultProxy implements AutoCloseable {

	private final List<Route> routes;

	private final List<Connection> connections = new CopyOnWriteArrayList<>();

	private final List<Fault> faults = new CopyOnWriteArrayList<>();

	private final Set<String> clientIds = ConcurrentHashMap.newKeySet();

	private final AtomicInteger refused = new AtomicInteger();

	/** Notified whenever a fault heals or the proxy closes, so that held bytes move again. */
	private final Object healed = new Object();

	private volatile boolean closed;

	/**
	 * A proxy on a free local port, not listening until {@link #open()}.
	 * @param target where to forward to, {@code host:port}
	 */
	public FaultProxy(String target) {
		this(List.of(target));
	}

	/**
	 * A proxy with a free local port for each target (the brokers of a cluster), not listening until {@link #open()}.
	 * @param targets where each port forwards to, {@code host:port}
	 */
	public FaultProxy(List<String> targets) {
		this.routes = targets.stream().map(Route::to).toList();
	}

	static int freePort() {
		try (ServerSocket probe = new ServerSocket(0)) {
			return probe.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The address to give clients; nothing listens there until {@link #open()}.
	 * @return {@code localhost:port} of the first target's port
	 */
	public String address() {
		return address(0);
	}

	/**
	 * The address that forwards to one of the targets.
	 * @param target the target's place in the list the proxy was made with
	 * @return {@code localhost:port}
	 */
	public String address(int target) {
		return "localhost:" + this.routes.get(target).port;
	}

	/**
	 * The address of each target, in the order the proxy was made with.
	 * @return {@code localhost:port} of each
	 */
	public List<String> addresses() {
		return this.routes.stream().map((route) -> "localhost:" + route.port).toList();
	}

	/**
	 * Start accepting and forwarding connections.
	 * @return this proxy
	 */
	public FaultProxy open() {
		for (Route route : this.routes) {
			try {
				ServerSocket listening = new ServerSocket();
				listening.setReuseAddress(true);
				listening.bind(new InetSocketAddress("localhost", route.port));
				route.server = listening;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			daemon("fault-proxy-" + route.port, () -> accept(route));
		}
		return this;
	}

	/**
	 * Close the connections of the clients named, and refuse theirs until healed: a link that is down.
	 * @param clients which client ids
	 * @return the fault, to heal
	 */
	public Fault cut(Predicate<String> clients) {
		Fault fault = apply(new Fault(Kind.CUT, clients, Duration.ZERO));
		for (Connection connection : this.connections) {
			if (connection.hit(fault)) {
				connection.close();
			}
		}
		return fault;
	}

	/**
	 * Hold every byte to and from the clients named until healed: a partition in which neither side hears the other
	 * and connections stay open; a client gives up on its requests after its own timeouts.
	 * @param clients which client ids
	 * @return the fault, to heal
	 */
	public Fault blackHole(Predicate<String> clients) {
		return apply(new Fault(Kind.BLACK_HOLE, clients, Duration.ZERO));
	}

	/**
	 * Deliver every byte to and from the clients named this long after it arrived: a slow link.
	 * @param clients which client ids
	 * @param latency the added latency, each way
	 * @return the fault, to heal
	 */
	public Fault delay(Predicate<String> clients, Duration latency) {
		return apply(new Fault(Kind.DELAY, clients, latency));
	}

	private Fault apply(Fault fault) {
		this.faults.add(fault);
		return fault;
	}

	/**
	 * The client ids of the connections made through this proxy so far.
	 * @return the ids
	 */
	public Set<String> clientIds() {
		return Set.copyOf(this.clientIds);
	}

	/**
	 * How many connections a cut refused or closed.
	 * @return the count
	 */
	public int refusedConnections() {
		return this.refused.get();
	}

	/**
	 * Clients whose id starts with a prefix: a member's clients by its client id.
	 * @param prefix the prefix
	 * @return the predicate
	 */
	public static Predicate<String> clientsStartingWith(String prefix) {
		return (clientId) -> clientId.startsWith(prefix);
	}

	private void accept(Route route) {
		ServerSocket listening = route.server;
		while (!listening.isClosed()) {
			try {
				Socket client = listening.accept();
				daemon("fault-proxy-connect", () -> connect(client, route));
			}
			catch (IOException ex) {
				// closed
			}
		}
	}

	/**
	 * Read the connection's first request for its client id, then forward it both ways. A target that refuses, or a
	 * client that closes first, leaves the client with a closed connection.
	 */
	private void connect(Socket client, Route route) {
		try {
			DataInputStream in = new DataInputStream(client.getInputStream());
			int size = in.readInt();
			byte[] first = new byte[size];
			in.readFully(first);
			Connection connection = new Connection(client, new Socket(route.targetHost, route.targetPort),
					clientIdOf(first));
			this.clientIds.add(connection.clientId);
			if (this.faults.stream().anyMatch((fault) -> fault.kind == Kind.CUT && connection.hit(fault))) {
				this.refused.incrementAndGet();
				connection.close();
				return;
			}
			this.connections.add(connection);
			connection.start(ByteBuffer.allocate(4 + size).putInt(size).put(first).array());
		}
		catch (IOException ex) {
			closeQuietly(client);
		}
	}

	/**
	 * The client id of a Kafka request: its header holds the API key and version (two bytes each), the correlation
	 * id (four), then the client id as a string of a two-byte length, -1 for none (the same in every header version).
	 */
	static String clientIdOf(byte[] request) {
		ByteBuffer buffer = ByteBuffer.wrap(request);
		buffer.position(8);
		short length = buffer.getShort();
		if (length < 0) {
			return "";
		}
		return new String(request, 10, length, StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.closed = true;
		for (Route route : this.routes) {
			if (route.server != null) {
				closeQuietly(route.server);
			}
		}
		for (Connection connection : this.connections) {
			connection.close();
		}
		synchronized (this.healed) {
			this.healed.notifyAll();
		}
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// closing anyway
		}
	}

	/**
	 * A port of the proxy and the target it forwards to.
	 */
	private static final class Route {

		private final int port = freePort();

		private final String targetHost;

		private final int targetPort;

		private volatile ServerSocket server;

		private Route(String targetHost, int targetPort) {
			this.targetHost = targetHost;
			this.targetPort = targetPort;
		}

		static Route to(String target) {
			int colon = target.lastIndexOf(':');
			return new Route(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
		}

	}

	private enum Kind {

		CUT, BLACK_HOLE, DELAY

	}

	/**
	 * A fault in effect until {@link #heal()}ed.
	 */
	public final class Fault implements AutoCloseable {

		private final Kind kind;

		private final Predicate<String> clients;

		private final Duration latency;

		private Fault(Kind kind, Predicate<String> clients, Duration latency) {
			this.kind = kind;
			this.clients = clients;
			this.latency = latency;
		}

		/**
		 * End the fault: held bytes move, new connections are let through.
		 */
		public void heal() {
			FaultProxy.this.faults.remove(this);
			synchronized (FaultProxy.this.healed) {
				FaultProxy.this.healed.notifyAll();
			}
		}

		@Override
		public void close() {
			heal();
		}

	}

	/**
	 * One client's connection through the proxy.
	 */
	private final class Connection {

		private final Socket client;

		private final Socket target;

		private final String clientId;

		Connection(Socket client, Socket target, String clientId) {
			this.client = client;
			this.target = target;
			this.clientId = clientId;
		}

		boolean hit(Fault fault) {
			return fault.clients.test(this.clientId);
		}

		void start(byte[] firstRequest) {
			BlockingQueue<Chunk> toTarget = new LinkedBlockingQueue<>();
			toTarget.add(new Chunk(firstRequest, System.nanoTime()));
			daemon("fault-proxy-read-" + this.clientId, () -> read(this.client, toTarget));
			daemon("fault-proxy-write-" + this.clientId, () -> write(toTarget, this.target));
			BlockingQueue<Chunk> toClient = new LinkedBlockingQueue<>();
			daemon("fault-proxy-read-" + this.clientId, () -> read(this.target, toClient));
			daemon("fault-proxy-write-" + this.clientId, () -> write(toClient, this.client));
		}

		private void read(Socket from, BlockingQueue<Chunk> chunks) {
			byte[] buffer = new byte[64 * 1024];
			try {
				InputStream in = from.getInputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					chunks.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime()));
				}
			}
			catch (IOException ex) {
				// one side closed
			}
			chunks.add(Chunk.END);
		}

		private void write(BlockingQueue<Chunk> chunks, Socket to) {
			try {
				OutputStream out = to.getOutputStream();
				while (true) {
					Chunk chunk = chunks.take();
					if (chunk == Chunk.END || !deliverable(chunk)) {
						break;
					}
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (IOException ex) {
				// one side closed
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			close();
		}

		/**
		 * Wait until a chunk may move: past its latency, out of every black hole. False when the connection is cut.
		 */
		private boolean deliverable(Chunk chunk) throws InterruptedException {
			synchronized (FaultProxy.this.healed) {
				while (true) {
					if (FaultProxy.this.closed || cut()) {
						return false;
					}
					long waitNanos = chunk.arrivedNanos + latency().toNanos() - System.nanoTime();
					boolean held = held();
					if (!held && waitNanos <= 0) {
						return true;
					}
					long waitMillis = held ? 100 : Math.max(1, waitNanos / 1_000_000);
					FaultProxy.this.healed.wait(Math.min(waitMillis, 100));
				}
			}
		}

		private boolean cut() {
			return FaultProxy.this.faults.stream().anyMatch((fault) -> fault.kind == Kind.CUT && hit(fault));
		}

		private boolean held() {
			return FaultProxy.this.faults.stream().anyMatch((fault) -> fault.kind == Kind.BLACK_HOLE && hit(fault));
		}

		private Duration latency() {
			return FaultProxy.this.faults.stream()
				.filter((fault) -> fault.kind == Kind.DELAY && hit(fault))
				.map((fault) -> fault.latency)
				.max(Duration::compareTo)
				.orElse(Duration.ZERO);
		}

		void close() {
			if (FaultProxy.this.connections.remove(this) && cut()) {
				FaultProxy.this.refused.incrementAndGet();
			}
			closeQuietly(this.client);
			closeQuietly(this.target);
		}

	}

	private record Chunk(byte[] bytes, long arrivedNanos) {

		static final Chunk END = new Chunk(new byte[0], 0);

	}

}
