package io.github.incrementalrebalance.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;


/**
 * The sample application's jar ({@code sample-app}, the one the system property {@code sample.jar} names) run as a
 * process of its own against the test's broker, as Kubernetes runs a pod: its own state directory and HTTP port, its
 * log in a file, read over its actuator with the viewer's credentials, the sample's operator asking it to leave.
 * The sample's tests and the benchmarks run it. Read from the test's thread and from awaits.
 *
 * @param name its instance id
 * @param port its HTTP port (the actuator's too)
 * @param process the process
 * @param log its standard output and error
 */
public record SampleProcess(String name, int port, Process process, Path log) {

	/** What the JVM exits with when its shutdown hooks ran to the end after a SIGTERM (128 + 15). */
	public static final int EXIT_AFTER_SIGTERM = 143;

	private static final Pattern ACTIVE = Pattern.compile("\"ACTIVE\":(\\d+)");

	private static final Pattern STANDBY = Pattern.compile("\\{[^{}]*\"state\":\"STANDBY\"[^{}]*}");

	private static final Pattern LAG = Pattern.compile("\"lag\":(\\d+)");

	private static final Pattern RESTORED = Pattern.compile("Restored (\\d+) records of store");

	private static final HttpClient HTTP = HttpClient.newHttpClient();

	/**
	 * Start one.
	 * @param broker the broker
	 * @param work where its state directory, temporary files and log go
	 * @param name its instance id
	 * @param arguments the application's arguments besides its port, broker, state directory, instance id and users
	 * @return the running process
	 */
	public static SampleProcess launch(KafkaBroker broker, Path work, String name, List<String> arguments)
			throws IOException {
		return launch(broker, work, name, List.of(), arguments);
	}

	/**
	 * Start one with JVM options of its own.
	 * @param broker the broker
	 * @param work where its state directory, temporary files and log go
	 * @param name its instance id
	 * @param options JVM options besides its heap and temporary directory
	 * @param arguments the application's arguments besides its port, broker, state directory, instance id and users
	 * @return the running process
	 */
	public static SampleProcess launch(KafkaBroker broker, Path work, String name, List<String> options,
			List<String> arguments) throws IOException {
		int port = freePort();
		Path log = work.resolve(name + ".log");
		List<String> jvm = new ArrayList<>(List.of("-Xmx384m", "-Djava.io.tmpdir=" + work));
		jvm.addAll(options);
		jvm.addAll(List.of("-jar", System.getProperty("sample.jar")));
		List<String> command = new ArrayList<>(JavaCommand.of(jvm.toArray(String[]::new)));
		command.addAll(List.of("--server.port=" + port,
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
				"--spring.kafka.streams.state-dir=" + work.resolve("state-" + name),
				"--incremental-rebalance.instance-id=" + name, "--sample.generate=false",
				"--sample.security.operator-password=operator-secret",
				"--sample.security.viewer-password=viewer-secret"));
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new SampleProcess(name, port, process, log);
	}

	/** Its active tasks as its endpoint says; 0 while it does not answer. */
	public int active() {
		Matcher matcher = ACTIVE.matcher(rebalance());
		return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
	}

	/** Its tasks ({@code /actuator/rebalance/tasks}); empty while it does not answer. */
	public String tasks() {
		return get("/actuator/rebalance/tasks", 200);
	}

	/** Whether it keeps a standby of any task. */
	public boolean hasStandbys() {
		return STANDBY.matcher(tasks()).find();
	}

	/** The largest lag of its standby tasks; 0 without standbys. */
	public long standbyLag() {
		Matcher standby = STANDBY.matcher(tasks());
		long largest = 0;
		while (standby.find()) {
			Matcher lag = LAG.matcher(standby.group());
			largest = lag.find() ? Math.max(largest, Long.parseLong(lag.group(1))) : largest;
		}
		return largest;
	}

	/** Its {@code /actuator/rebalance}; empty while it does not answer. */
	public String rebalance() {
		return get("/actuator/rebalance", 200);
	}

	/** The group as its last plan shows it ({@code /actuator/rebalance/group}); empty while it does not answer. */
	public String group() {
		return get("/actuator/rebalance/group", 200);
	}

	/** Whether it reports ready ({@code /actuator/health/readiness} answers 200). */
	public boolean ready() {
		return !get("/actuator/health/readiness", 200).isEmpty();
	}

	/**
	 * Ask it to leave over its endpoint, as an operator.
	 * @return the endpoint's status code
	 */
	public int leave() throws IOException, InterruptedException {
		HttpResponse<Void> response = HTTP.send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/rebalance/leave"))
			.header("Authorization", basic("operator:operator-secret"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.discarding());
		return response.statusCode();
	}

	/** How much it has logged so far: a mark to read what it logs after. */
	public long logSize() throws IOException {
		return Files.size(this.log);
	}

	/** Records it restored into active tasks since its log had a size (the sample logs each restore). */
	public long restoredSince(long logSize) throws IOException {
		Matcher matcher = RESTORED.matcher(logSince(logSize));
		long total = 0;
		while (matcher.find()) {
			total += Long.parseLong(matcher.group(1));
		}
		return total;
	}

	public String logSince(long logSize) throws IOException {
		byte[] bytes = Files.readAllBytes(this.log);
		return new String(bytes, (int) logSize, bytes.length - (int) logSize, StandardCharsets.UTF_8);
	}

	private String get(String path, int expected) {
		if (!this.process.isAlive()) {
			return "";
		}
		try {
			HttpResponse<String> response = HTTP.send(HttpRequest
				.newBuilder(URI.create("http://localhost:" + this.port + path))
				.header("Authorization", basic("viewer:viewer-secret"))
				.GET()
				.build(), HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == expected) ? response.body() : "";
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

	private static String basic(String credentials) {
		return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
