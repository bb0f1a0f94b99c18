package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.github.incrementalrebalance.identity.MemberIdentity;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * A Kubernetes scale-down of the pods it removes, drained first: it checks the workload through the Kubernetes API
 * (fabric8's client, configured as {@code kubectl} is: the pod's service account in a cluster, else the kubeconfig),
 * asks the pods to leave, waits until they have, then gives a Deployment's drained pods the lowest deletion cost and
 * scales the workload, once. Nothing is written to Kubernetes while a pod has not left; with {@code --dry-run} nothing
 * is, and the {@code kubectl} steps are printed instead.
 */
@Command(name = "scale-down", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = { "Drain the pods a Kubernetes scale-down removes, wait until they have left, then remove them: "
				+ "a Deployment's get the lowest pod-deletion-cost and the workload is scaled, through the Kubernetes "
				+ "API (in a pod its service account, else the kubeconfig, as kubectl).",
				"A StatefulSet removes its highest ordinals: --statefulset NAME --replicas N drains NAME-N and above. "
						+ "A Deployment removes the pods it is told to: --deployment NAME --replicas N --instance-id "
						+ "POD,... drains those pods; N must be the replicas less those pods.",
				"The workload is checked before any pod is asked to leave, and nothing is written to it while a pod "
						+ "has not left. --dry-run drains and prints the kubectl steps instead of taking them.",
				"A drained pod stays up, not ready and out of the group until it is removed: on Kubernetes "
						+ "incremental-rebalance.drain.on-drained is stop-streams by default." })
final class ScaleDownCommand extends GroupCommand {

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
					+ "hand-over, 5 when the wait passed first: then nothing is removed).")
	Duration wait;

	@Option(names = "--dry-run", description = "Drain, then print the kubectl steps that remove the pods instead of "
			+ "taking them; asks nothing of the Kubernetes API.")
	boolean dryRun;

	@Option(names = { "-n", "--namespace" }, paramLabel = "NAMESPACE",
			description = "The workload's namespace. Default: the Kubernetes client's (the pod's own, or the "
					+ "kubeconfig context's).")
	String namespace;

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
		if (this.dryRun) {
			return drainAndRemove(session, removed, Optional.empty(), out, err);
		}
		try (KubernetesClient client = new KubernetesClientBuilder().build()) {
			String in = (this.namespace != null) ? this.namespace
					: Optional.ofNullable(client.getNamespace()).orElse("default");
			KubernetesWorkload workload = new KubernetesWorkload(client, in, kind(), workloadName());
			Optional<String> refusal = workload.refusal(removed, this.replicas);
			if (refusal.isPresent()) {
				err.println("error: " + refusal.get() + "; nothing asked");
				return ExitCodes.REFUSED;
			}
			return drainAndRemove(session, removed, Optional.of(workload), out, err);
		}
		catch (KubernetesClientException ex) {
			err.println("error: the Kubernetes API: " + ex.getMessage() + " (--dry-run drains without it and prints "
					+ "the kubectl steps)");
			return ExitCodes.UNAVAILABLE;
		}
	}

	/**
	 * Ask the pods to leave, wait until they have, then remove them through the workload, or print the steps.
	 * @param workload the workload to remove them from; empty for a dry run
	 */
	private int drainAndRemove(ControlSession session, List<String> removed, Optional<KubernetesWorkload> workload,
			PrintWriter out, PrintWriter err) {
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
		List<String> pods = List.copyOf(podsById.values());
		List<String> next = List.of();
		List<String> done = List.of();
		if (status != ExitCodes.STILL_LEAVING) {
			if (workload.isEmpty()) {
				next = KubernetesWorkload.steps(kind(), workloadName(), Optional.ofNullable(this.namespace), pods,
						this.replicas);
			}
			else {
				try {
					done = workload.get().remove(pods, this.replicas);
				}
				catch (KubernetesClientException ex) {
					err.println("error: the pods left, but the Kubernetes API refused their removal: " + ex.getMessage()
							+ "; remove them with: " + String.join("; ", KubernetesWorkload.steps(kind(), workloadName(),
									Optional.ofNullable(this.namespace), pods, this.replicas)));
					status = ExitCodes.UNAVAILABLE;
				}
			}
		}
		if (this.output.json()) {
			Output.printJson(out, new ScaleDown(ended, next, done));
			return status;
		}
		ended.forEach((outcome) -> out.println(outcome.instanceId() + ": " + outcome.ended()));
		if (status == ExitCodes.STILL_LEAVING) {
			err.println("WARN: the wait passed before every pod had left, so none was removed: scale down once they "
					+ "have ('list' shows them), or their tasks stall until the session ends and restore from scratch");
		}
		next.forEach((step) -> out.println("next: " + step));
		done.forEach((step) -> out.println("done: " + step));
		return status;
	}

	private KubernetesWorkload.Kind kind() {
		return (this.workload.statefulSet != null) ? KubernetesWorkload.Kind.STATEFUL_SET
				: KubernetesWorkload.Kind.DEPLOYMENT;
	}

	private String workloadName() {
		return (this.workload.statefulSet != null) ? this.workload.statefulSet : this.workload.deployment;
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
	 * @param next with {@code --dry-run}, the kubectl steps that remove them; none when the wait passed first
	 * @param done the steps taken through the Kubernetes API, as the kubectl commands that do the same
	 */
	record ScaleDown(List<Outcome> leaves, List<String> next, List<String> done) {
	}

}
