package io.github.incrementalrebalance.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.KafkaStreams;

/**
 * A member of the {@link CountingTopology} application in a JVM of its own, so a test can kill it for real
 * ({@code kill -9}): nothing of it closes, leaves or commits. Started with {@link #launch}.
 */
public final class StandaloneMember implements AutoCloseable {

	/** A property of {@link #launch} that throttles the member's restores to this many records per second. */
	public static final String RESTORE_RATE = "testkit.restore.rate";

	private static final String RUNNING = "STANDALONE MEMBER RUNNING";

	private final Process process;

	private final CountDownLatch running = new CountDownLatch(1);

	private StandaloneMember(Process process) {
		this.process = process;
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.contains(RUNNING)) {
						this.running.countDown();
					}
				}
			}
			catch (IOException ex) {
				// the process is gone: nothing more to read
			}
		}, "standalone-member-output");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start a member with a member runtime in a new JVM on this JVM's class path.
	 * @param bootstrapServers the broker
	 * @param applicationId the application
	 * @param name the instance id
	 * @param stateDir its state directory root
	 * @param input the input topic
	 * @param output the output topic
	 * @param properties more Streams properties (strings)
	 * @return the running member
	 * @throws IOException when the JVM cannot start
	 */
	public static StandaloneMember launch(String bootstrapServers, String applicationId, String name, Path stateDir,
			String input, String output, Map<String, String> properties) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx512m", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), "-cp",
				System.getProperty("java.class.path"), StandaloneMember.class.getName(), bootstrapServers,
				applicationId, name, stateDir.toString(), input, output));
		properties.forEach((key, value) -> command.add(key + "=" + value));
		return new StandaloneMember(new ProcessBuilder(command).redirectErrorStream(true).start());
	}

	/**
	 * Wait until the member's Kafka Streams is RUNNING.
	 * @param timeout how long
	 * @return whether it runs
	 */
	public boolean awaitRunning(Duration timeout) throws InterruptedException {
		return this.running.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * {@code kill -9}.
	 */
	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(30, TimeUnit.SECONDS);
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			kill();
		}
	}

	public static void main(String[] args) throws InterruptedException {
		String bootstrapServers = args[0];
		String applicationId = args[1];
		String name = args[2];
		Path stateDir = Path.of(args[3]);
		String input = args[4];
		String output = args[5];
		GapMeter gapMeter = new GapMeter();
		StreamsLauncher launcher = new StreamsLauncher(bootstrapServers, applicationId, stateDir,
				(instance) -> CountingTopology.build(input, output, instance, gapMeter));
		StreamsLauncher.Spec spec = launcher.instance(name);
		for (int i = 6; i < args.length; i++) {
			String[] property = args[i].split("=", 2);
			if (property[0].equals(RESTORE_RATE)) {
				RestoreThrottle throttle = RestoreThrottle.of(Long.parseLong(property[1]));
				spec.clientSupplier((supplier) -> new ThrottledRestoreSupplier(supplier, throttle));
			}
			else {
				spec.property(property[0], property[1]);
			}
		}
		StreamsInstance member = spec.memberRuntime().start();
		member.awaitState(KafkaStreams.State.RUNNING, Duration.ofMinutes(2));
		System.out.println(RUNNING);
		Thread.currentThread().join();
	}

}
