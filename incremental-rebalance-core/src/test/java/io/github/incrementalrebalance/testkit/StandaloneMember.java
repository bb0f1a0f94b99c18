package io.github.incrementalrebalance.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * A member of the {@link CountingTopology} application in a JVM of its own, so a test can kill it for real
 * ({@code kill -9}): nothing of it closes, leaves or commits. Started with {@link #launch}; a SIGTERM
 * ({@link #terminate}) closes its Kafka Streams as a graceful shutdown does. It reports the records it restored into
 * its active tasks, and its output goes to {@code <state-dir>/<name>.log} (appended to: a start again under the same
 * name keeps the log of the one before).
 */
public final class StandaloneMember implements AutoCloseable {

	/** A property of {@link #launch} that throttles the member's restores to this many records per second. */
	public static final String RESTORE_RATE = "testkit.restore.rate";

	/**
	 * A property of {@link #launch}: the topology also reads its output topic in a stateless sub-topology and writes
	 * what it reads to this topic.
	 */
	public static final String FORWARD_TOPIC = "testkit.forward.topic";

	private static final String RUNNING = "STANDALONE MEMBER RUNNING";

	private static final String RESTORED = "STANDALONE MEMBER RESTORED ";

	/** A line on the member's standard input: hold its stream thread on the next record for this many ms. */
	private static final String SLOW_CALL = "slow-call ";

	private static final String SLOW_CALL_TAKEN = "STANDALONE MEMBER SLOW CALL TAKEN";

	private static final Duration REPORT_INTERVAL = Duration.ofMillis(250);

	private final String name;

	private final Process process;

	private final CountDownLatch running = new CountDownLatch(1);

	private final Map<TaskId, Long> restored = new ConcurrentHashMap<>();

	private final Semaphore slowCallsTaken = new Semaphore(0);

	private final PrintWriter commands;

	private StandaloneMember(String name, Process process, Path log) throws IOException {
		this.name = name;
		this.process = process;
		this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
		PrintWriter logFile = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
				StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)); logFile) {
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith(RESTORED)) {
						String[] taskAndCount = line.substring(RESTORED.length()).split(" ");
						this.restored.put(TaskId.parse(taskAndCount[0]), Long.parseLong(taskAndCount[1]));
						continue;
					}
					if (line.equals(SLOW_CALL_TAKEN)) {
						this.slowCallsTaken.release();
					}
					if (line.contains(RUNNING)) {
						this.running.countDown();
					}
					logFile.println(line);
				}
			}
			catch (IOException ex) {
				// the process is gone: nothing more to read
			}
		}, "standalone-member-output-" + name);
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
		List<String> command = JavaCommand.of("-Xmx512m", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
				"-cp", System.getProperty("java.class.path"), StandaloneMember.class.getName(), bootstrapServers,
				applicationId, name, stateDir.toString(), input, output);
		properties.forEach((key, value) -> command.add(key + "=" + value));
		Files.createDirectories(stateDir);
		return new StandaloneMember(name, new ProcessBuilder(command).redirectErrorStream(true).start(),
				stateDir.resolve(name + ".log"));
	}

	public String name() {
		return this.name;
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
	 * Hold the member's stream thread on the next record it processes, as a slow remote call or a long garbage
	 * collection would: it neither polls nor rejoins a rebalance meanwhile (see {@link SlowCalls}).
	 * @param duration how long the thread is stuck
	 */
	public void slowNextRecord(Duration duration) {
		this.commands.println(SLOW_CALL + duration.toMillis());
	}

	/**
	 * Wait until the member's stream thread took the slow call asked for by {@link #slowNextRecord}.
	 * @param timeout how long
	 * @return whether it took it
	 */
	public boolean awaitSlowCallTaken(Duration timeout) throws InterruptedException {
		return this.slowCallsTaken.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Records restored into active tasks, per task, as last reported (reports come every 250 ms, and stop with a
	 * {@code kill -9}).
	 * @return the records per task
	 */
	public Map<TaskId, Long> restored() {
		return Map.copyOf(this.restored);
	}

	/**
	 * {@code kill -9}.
	 */
	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(30, TimeUnit.SECONDS);
	}

	/**
	 * {@code kill -TERM}: the member closes its Kafka Streams and exits.
	 * @param timeout how long to wait for it to exit
	 * @return whether it exited in time
	 */
	public boolean terminate(Duration timeout) throws InterruptedException {
		this.process.destroy();
		return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
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
		Map<String, String> properties = new HashMap<>();
		for (int i = 6; i < args.length; i++) {
			String[] property = args[i].split("=", 2);
			properties.put(property[0], property[1]);
		}
		GapMeter gapMeter = new GapMeter();
		SlowCalls slowCalls = new SlowCalls();
		String forward = properties.remove(FORWARD_TOPIC);
		StreamsLauncher launcher = new StreamsLauncher(bootstrapServers, applicationId, stateDir,
				(instance) -> (forward != null)
						? CountingTopology.buildWithStatelessStage(input, output, forward, instance, gapMeter, slowCalls)
						: CountingTopology.build(input, output, instance, gapMeter, slowCalls));
		StreamsLauncher.Spec spec = launcher.instance(name);
		String rate = properties.remove(RESTORE_RATE);
		if (rate != null) {
			RestoreThrottle throttle = RestoreThrottle.of(Long.parseLong(rate));
			spec.restoreThrottle(throttle);
		}
		properties.forEach(spec::property);
		StreamsInstance member = spec.memberRuntime().start();
		Runtime.getRuntime().addShutdownHook(new Thread(member::close, "standalone-member-shutdown"));
		member.awaitState(KafkaStreams.State.RUNNING, Duration.ofMinutes(2));
		System.out.println(RUNNING);
		Thread commandReader = new Thread(() -> takeCommands(name, slowCalls), "standalone-member-commands");
		commandReader.setDaemon(true);
		commandReader.start();
		Map<TaskId, Long> reported = new HashMap<>();
		while (true) {
			member.restoredRecords().restoredByTask().forEach((task, count) -> {
				if (!count.equals(reported.put(task, count))) {
					System.out.println(RESTORED + task + " " + count);
				}
			});
			Thread.sleep(REPORT_INTERVAL.toMillis());
		}
	}

	private static void takeCommands(String name, SlowCalls slowCalls) {
		try (BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				if (!line.startsWith(SLOW_CALL)) {
					throw new IllegalArgumentException("unknown command '" + line + "': only '" + SLOW_CALL
							+ "<milliseconds>' is taken");
				}
				slowCalls.armNext(name, Duration.ofMillis(Long.parseLong(line.substring(SLOW_CALL.length()))));
				await().atMost(Duration.ofMinutes(5)).until(() -> !slowCalls.isArmed(name));
				System.out.println(SLOW_CALL_TAKEN);
			}
		}
		catch (IOException ex) {
			// the test's end of the pipe is gone: no more commands
		}
	}

}
