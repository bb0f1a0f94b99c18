package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.incrementalrebalance.identity.MemberIdentity;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * A Kubernetes scale-down of the pods it removes, drained first: it asks them to leave, waits until they have, and
 * prints the {@code kubectl} step that removes them. It calls no Kubernetes API: the step is the operator's to run.
 */
@Command(name = "scale-down", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = { "Drain the pods a Kubernetes scale-down removes, wait until they have left, and print the "
				+ "kubectl step that removes them.",
				"A StatefulSet removes its highest ordinals: --statefulset NAME --replicas N drains NAME-N and above. "
						+ "A Deployment removes the pods it is told to: --deployment NAME --replicas N --instance-id "
						+ "POD,... drains those pods, and the step marks them to go first.",
				"Give the pods incremental-rebalance.drain.on-drained=stop-streams (the shipped manifests do): a drained pod "
						+ "then stays up, not ready and out of the group until the step removes it." })
final class ScaleDownCommand extends GroupCommand {

	/** The deletion cost the step gives a drained Deployment pod: below every other pod's (0 unless set). */
	static final int DELETION_COST = -1000;

	@ArgGroup(exclusive = true, multiplicity = "1")
	Workload workload;

	@Option(names = "--replicas", required = true, paramLabel = "N",
			description = "The replicas the workload scales down to.")
	int replicas;

	@Option(names = "--instance-id", split = ",", paramLabel = "POD",
			description = "With --deployment: the pods to remove, comma-separated, by name.")
	List<String> pods;

	@Mixin
	LeaveOptions leave;

	@Option(names = "--wait", required = true, paramLabel = "DURATION", converter = DurationConverter.class,
			description = "Wait up to this long until each pod has left (exit 4 when one left without a warm "
					+ "hand-over, 5 when the wait passed first: then no step is printed).")
	Duration wait;

	@Override
	int run(ControlSession session, PrintWriter out, PrintWriter err) {
		List<String> removed = (this.workload.statefulSet != null)
				? highestOrdinals(session.memberIds(this.connection.applicationId), this.workload.statefulSet,
						this.replicas)
				: this.pods;
		if (removed.isEmpty()) {
			err.println("error: no member of " + this.connection.applicationId + " is pod "
					+ this.workload.statefulSet + "-" + this.replicas + " or above (members: "
					+ String.join(", ", session.memberIds(this.connection.applicationId))
					+ "): nothing to drain");
			return ExitCodes.REFUSED;
		}
		Map<String, String> podsById = new LinkedHashMap<>();
		removed.forEach((pod) -> podsById.put(MemberIdentity.instanceIdOf(pod), pod));
		Leaves.Asked asked = Leaves.ask(session, List.copyOf(podsById.keySet()), this.leave.force,
				this.leave.timeout(), this.connection.applicationId, true);
		if (asked.refusal().isPresent()) {
			err.println("error: " + asked.refusal().get() + "; nothing asked");
			return ExitCodes.REFUSED;
		}
		if (!this.output.json()) {
			asked.outcomes().forEach((outcome) -> out.println(outcome.instanceId() + ": leaving (leave "
					+ outcome.leaveId() + ")"));
			out.flush();
		}
		List<Outcome> ended = Leaves.awaitEnds(session.reader(), asked.outcomes(), this.wait);
		int status = Leaves.statusOf(ended);
		List<String> next = (status == ExitCodes.STILL_LEAVING) ? List.of() : steps(List.copyOf(podsById.values()));
		if (this.output.json()) {
			Output.printJson(out, new ScaleDown(ended, next));
			return status;
		}
		ended.forEach((outcome) -> out.println(outcome.instanceId() + ": " + outcome.ended()));
		if (status == ExitCodes.STILL_LEAVING) {
			err.println("WARN: the wait passed before every pod had left: scale down once they have "
					+ "('list' shows them), or their tasks stall until the session ends and restore from scratch");
		}
		next.forEach((step) -> out.println("next: " + step));
		return status;
	}

	@Override
	void validate() {
		if (this.replicas < 0) {
			throw new ParameterException(this.spec.commandLine(),
					"--replicas must be 0 or more, was " + this.replicas);
		}
		if (this.workload.statefulSet != null && this.pods != null) {
			throw new ParameterException(this.spec.commandLine(), "--instance-id is for --deployment: a StatefulSet "
					+ "removes its highest ordinals, " + this.workload.statefulSet + "-" + this.replicas + " and up");
		}
		if (this.workload.deployment != null && (this.pods == null || this.pods.isEmpty())) {
			throw new ParameterException(this.spec.commandLine(),
					"--deployment needs --instance-id: the pods to remove, by name");
		}
		List<String> names = new ArrayList<>((this.pods != null) ? this.pods : List.of());
		if (this.workload.statefulSet != null) {
			names.add(this.workload.statefulSet + "-" + this.replicas);
		}
		for (String pod : names) {
			try {
				MemberIdentity.instanceIdOf(pod);
			}
			catch (IllegalArgumentException ex) {
				throw new ParameterException(this.spec.commandLine(), ex.getMessage());
			}
		}
	}

	/**
	 * The members a StatefulSet scaled down to {@code replicas} removes. Its ordinals run from 0 without gaps, so those
	 * above lie among the next as many as the group has members; a pod name too long for an instance id stands for
	 * the id it is shortened to.
	 */
	private static List<String> highestOrdinals(Set<String> members, String statefulSet, int replicas) {
		List<String> pods = new ArrayList<>();
		for (int ordinal = replicas; ordinal <= replicas + members.size(); ordinal++) {
			String pod = statefulSet + "-" + ordinal;
			if (members.contains(MemberIdentity.instanceIdOf(pod))) {
				pods.add(pod);
			}
		}
		return pods;
	}

	private List<String> steps(List<String> removedPods) {
		List<String> steps = new ArrayList<>();
		if (this.workload.statefulSet != null) {
			steps.add("kubectl scale statefulset " + this.workload.statefulSet + " --replicas=" + this.replicas);
			return steps;
		}
		// a ReplicaSet removes pods that are not ready first (a drained pod is not), then the lowest deletion cost
		removedPods.forEach((pod) -> steps.add("kubectl annotate pod " + pod
				+ " controller.kubernetes.io/pod-deletion-cost=" + DELETION_COST + " --overwrite"));
		steps.add("kubectl scale deployment " + this.workload.deployment + " --replicas=" + this.replicas);
		return steps;
	}

	/**
	 * The workload scaled down: one of the two.
	 */
	static final class Workload {

		@Option(names = "--statefulset", required = true, paramLabel = "NAME",
				description = "The StatefulSet: its pods NAME-N and above are drained.")
		String statefulSet;

		@Option(names = "--deployment", required = true, paramLabel = "NAME",
				description = "The Deployment: the pods named with --instance-id are drained.")
		String deployment;

	}

	/**
	 * What {@code --output json} prints.
	 * @param leaves how each pod's leave ended
	 * @param next the kubectl steps that remove them; none when the wait passed first
	 */
	record ScaleDown(List<Outcome> leaves, List<String> next) {
	}

}
