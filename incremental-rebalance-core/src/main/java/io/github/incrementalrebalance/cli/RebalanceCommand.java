package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;

/**
 * The command line of incremental-rebalance, for operators and scripts that act on many instances at once (a host
 * swap marks every old instance leaving):
 * <pre>
 * leave  --bootstrap-servers HOSTS --application-id APP --instance-id a,b,c [--timeout 5m] [--force] [--command-config FILE]
 * cancel --bootstrap-servers HOSTS --application-id APP --instance-id a,b,c [--command-config FILE]
 * list   --bootstrap-servers HOSTS --application-id APP [--command-config FILE]
 * </pre>
 * {@code --command-config} is a properties file of client settings (security), as with Kafka's own tools;
 * {@code --control-topic} overrides {@code <application-id>-rebalance-control}. A leave that would leave no member of
 * the last plan stable is refused unless {@code --force}; so is a leave of an id two live members share. {@code list}
 * shows the members of the current plan, then the members that left lately with how their leave ended.
 */
public final class RebalanceCommand {

	private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

	private static final String ROW = "%-30s %-12s %-26s %-30s %-30s %s%n";

	private final PrintStream out;

	private final PrintStream err;

	RebalanceCommand(PrintStream out, PrintStream err) {
		this.out = out;
		this.err = err;
	}

	public static void main(String[] args) {
		System.exit(new RebalanceCommand(System.out, System.err).run(args));
	}

	/**
	 * Run a command.
	 * @param args the command and its options
	 * @return 0 when done, 1 when an instance id is unknown or the cluster failed, 2 for bad arguments
	 */
	int run(String... args) {
		Arguments arguments;
		try {
			arguments = Arguments.parse(args);
		}
		catch (IllegalArgumentException ex) {
			this.err.println("error: " + ex.getMessage());
			this.err.println(Arguments.USAGE);
			return 2;
		}
		Map<String, Object> config;
		try {
			config = arguments.clientConfig();
		}
		catch (IOException ex) {
			this.err.println("error: cannot read --command-config: " + ex.getMessage());
			return 2;
		}
		String topic = arguments.controlTopic();
		try (ControlTopicReader reader = new ControlTopicReader(config, topic)) {
			reader.start();
			if (!reader.awaitCaughtUp(READ_TIMEOUT)) {
				this.err.println("error: could not read control topic " + topic + " within " + READ_TIMEOUT);
				return 1;
			}
			return switch (arguments.command()) {
				case "list" -> list(reader);
				case "leave", "cancel" -> {
					try (ControlTopicWriter writer = new ControlTopicWriter(config, topic)) {
						yield arguments.command().equals("leave") ? leave(arguments, reader, writer)
								: cancel(arguments, reader, writer);
					}
				}
				default -> throw new IllegalStateException(arguments.command());
			};
		}
		catch (RuntimeException ex) {
			this.err.println("error: " + ex.getMessage());
			return 1;
		}
	}

	private int leave(Arguments arguments, ControlTopicReader reader, ControlTopicWriter writer) {
		int status = 0;
		Instant now = Instant.now();
		Optional<PlanEpoch> epoch = reader.planEpoch();
		List<PlanRecord> plans = reader.plans();
		boolean noneWouldStay = epoch.isPresent() && plans.stream()
			.noneMatch((plan) -> !plan.leaving() && !arguments.instanceIds().contains(plan.instanceId()));
		if (noneWouldStay && !arguments.force()) {
			this.err.println("error: no member of " + arguments.applicationId() + " would stay in the group (last plan): "
					+ "the leaving instances' tasks would have nowhere to go. Start other instances first, or add --force");
			return 1;
		}
		List<String> duplicated = epoch.map(PlanEpoch::duplicateInstanceIds).orElse(List.of());
		for (String instanceId : arguments.instanceIds()) {
			if (duplicated.contains(instanceId)) {
				this.err.println("WARN: instance id '" + instanceId + "' is used by two live members (see 'list'): give "
						+ "each its own incremental.rebalance.instance.id before asking one to leave; skipped");
				status = 1;
				continue;
			}
			Optional<PlanRecord> plan = plans.stream().filter((p) -> p.instanceId().equals(instanceId)).findFirst();
			if (plan.isEmpty()) {
				this.err.println("WARN: unknown instance id '" + instanceId + "': no member of " + arguments.applicationId()
						+ " has that id in the last plan (see 'list'); skipped");
				status = 1;
				continue;
			}
			LeaveRecord request = LeaveRecord.request(instanceId, plan.get().incarnation(), now, arguments.timeout(),
					"cli");
			write(writer, request);
			this.out.println(instanceId + ": leaving (leave " + request.leaveId()
					+ arguments.timeout().map((timeout) -> ", timeout " + timeout).orElse("") + ")");
		}
		return status;
	}

	private int cancel(Arguments arguments, ControlTopicReader reader, ControlTopicWriter writer) {
		int status = 0;
		for (String instanceId : arguments.instanceIds()) {
			Optional<LeaveRecord> leave = reader.leaveRecord(instanceId).filter(LeaveRecord::pending);
			if (leave.isEmpty()) {
				this.err.println("WARN: '" + instanceId + "' is not leaving; nothing to cancel");
				status = 1;
				continue;
			}
			write(writer, leave.get().cancel("cli"));
			this.out.println(instanceId + ": leave " + leave.get().leaveId() + " cancelled");
		}
		return status;
	}

	private int list(ControlTopicReader reader) {
		Optional<PlanEpoch> epoch = reader.planEpoch();
		this.out.println(epoch.map((e) -> "plan of generation " + e.generation() + " by " + e.leader() + " (" + e.at()
				+ "): " + e.summary())
			.orElse("no plan published yet"));
		this.out.printf(ROW, "INSTANCE", "INCARNATION", "STATE", "ACTIVE", "LEARNING", "STANDBY");
		Map<String, LeaveRecord> leaves = reader.leaveRecords();
		for (PlanRecord plan : reader.plans()) {
			Optional<LeaveRecord> leave = Optional.ofNullable(leaves.get(plan.instanceId()))
				.filter((record) -> record.incarnation().equals(plan.incarnation()));
			String state = plan.handOver().map((reason) -> "HAND_OVER " + reason)
				.orElse((plan.leaving() || leave.filter(LeaveRecord::pending).isPresent()) ? "LEAVING" : "STABLE");
			List<String> learning = new ArrayList<>();
			plan.learning().forEach((task, lag) -> learning.add(task + (plan.ready().contains(task) ? " ready"
					: " lag " + lag)));
			this.out.printf(ROW, plan.instanceId(), plan.incarnation(), state, plan.active(), learning,
					plan.standby());
		}
		List<LeaveRecord> ended = leaves.values().stream()
			.filter((leave) -> leave.ended().isPresent())
			.sorted(Comparator.comparing(LeaveRecord::instanceId))
			.toList();
		if (!ended.isEmpty()) {
			this.out.println("left:");
			for (LeaveRecord leave : ended) {
				this.out.printf("%-30s %-12s leave %s (%s, asked by %s): %s%n", leave.instanceId(), leave.incarnation(),
						leave.leaveId(), leave.requestedAt(), leave.source(), leave.ended().get());
			}
		}
		return 0;
	}

	private static void write(ControlTopicWriter writer, LeaveRecord record) {
		try {
			writer.write(record).get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("cannot write the leave of " + record.instanceId() + ": " + ex, ex);
		}
	}

	/**
	 * The parsed command line.
	 */
	record Arguments(String command, String bootstrapServers, String applicationId, List<String> instanceIds,
			Optional<Duration> timeout, boolean force, Optional<Path> commandConfig, Optional<String> topic) {

		static final String USAGE = """
				usage: incremental-rebalance leave|cancel|list --bootstrap-servers HOSTS --application-id APP
				         [--instance-id a,b,c] [--timeout 5m] [--force] [--command-config FILE] [--control-topic TOPIC]""";

		static Arguments parse(String... args) {
			if (args.length == 0 || !List.of("leave", "cancel", "list").contains(args[0])) {
				throw new IllegalArgumentException("the first argument must be leave, cancel or list");
			}
			Map<String, String> options = new HashMap<>();
			boolean force = false;
			for (int i = 1; i < args.length; i++) {
				String name = args[i];
				if (name.equals("--force")) {
					force = true;
					continue;
				}
				if (!List.of("--bootstrap-servers", "--application-id", "--instance-id", "--timeout",
						"--command-config", "--control-topic").contains(name)) {
					throw new IllegalArgumentException("unknown option '" + name + "'");
				}
				if (i + 1 >= args.length) {
					throw new IllegalArgumentException(name + " needs a value");
				}
				options.put(name, args[++i]);
			}
			String bootstrap = required(options, "--bootstrap-servers");
			String applicationId = required(options, "--application-id");
			List<String> ids = Optional.ofNullable(options.get("--instance-id"))
				.map((value) -> List.of(value.split(",")))
				.orElse(List.of());
			if (!args[0].equals("list") && ids.isEmpty()) {
				throw new IllegalArgumentException(args[0] + " needs --instance-id (comma-separated)");
			}
			return new Arguments(args[0], bootstrap, applicationId, ids,
					Optional.ofNullable(options.get("--timeout")).map(Arguments::duration), force,
					Optional.ofNullable(options.get("--command-config")).map(Path::of),
					Optional.ofNullable(options.get("--control-topic")));
		}

		private static String required(Map<String, String> options, String name) {
			String value = options.get(name);
			if (value == null || value.isBlank()) {
				throw new IllegalArgumentException(name + " is required");
			}
			return value;
		}

		/**
		 * A duration as {@code 90s}, {@code 5m}, {@code 1h}, milliseconds, or ISO-8601 ({@code PT5M}).
		 */
		static Duration duration(String value) {
			try {
				if (value.matches("\\d+")) {
					return Duration.ofMillis(Long.parseLong(value));
				}
				if (value.matches("\\d+(ms|s|m|h)")) {
					long amount = Long.parseLong(value.replaceAll("\\D", ""));
					return switch (value.replaceAll("\\d", "")) {
						case "ms" -> Duration.ofMillis(amount);
						case "s" -> Duration.ofSeconds(amount);
						case "m" -> Duration.ofMinutes(amount);
						default -> Duration.ofHours(amount);
					};
				}
				return Duration.parse(value);
			}
			catch (DateTimeParseException ex) {
				throw new IllegalArgumentException("--timeout '" + value + "' is not a duration: use 90s, 5m, 1h, "
						+ "milliseconds or ISO-8601 (PT5M)");
			}
		}

		String controlTopic() {
			return this.topic.orElseGet(() -> ControlTopic.defaultName(this.applicationId));
		}

		Map<String, Object> clientConfig() throws IOException {
			Map<String, Object> config = new HashMap<>();
			if (this.commandConfig.isPresent()) {
				Properties properties = new Properties();
				try (InputStream in = Files.newInputStream(this.commandConfig.get())) {
					properties.load(in);
				}
				properties.forEach((key, value) -> config.put(String.valueOf(key), value));
			}
			config.put("bootstrap.servers", this.bootstrapServers);
			config.put("application.id", this.applicationId + "-cli");
			return config;
		}

	}

}
