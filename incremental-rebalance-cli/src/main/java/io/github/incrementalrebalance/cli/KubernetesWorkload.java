package io.github.incrementalrebalance.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The workload a scale-down removes pods from, through the Kubernetes API: checked before any pod is asked to leave
 * (the workload exists, the pods named are its own, and the replicas asked remove exactly them), then scaled once
 * they have left. A ReplicaSet scaling down removes pods that are not ready first (a drained pod is not), then those of
 * the lowest {@code controller.kubernetes.io/pod-deletion-cost}: the drained pods get a cost below every other pod's.
 * A StatefulSet removes its highest ordinals, which are the ones drained.
 */
final class KubernetesWorkload {

	static final String DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

	/** The deletion cost a drained pod gets at most: below every pod without one (0). */
	static final int HIGHEST_DRAINED_COST = -1000;

	private final KubernetesClient client;

	private final String namespace;

	private final Kind kind;

	private final String name;

	/**
	 * @param client the Kubernetes client
	 * @param namespace the workload's namespace
	 * @param kind a Deployment or a StatefulSet
	 * @param name its name
	 */
	KubernetesWorkload(KubernetesClient client, String namespace, Kind kind, String name) {
		this.client = Objects.requireNonNull(client, "client");
		this.namespace = Objects.requireNonNull(namespace, "namespace");
		this.kind = kind;
		this.name = name;
	}

	/**
	 * Why scaling this workload to {@code replicas} would not remove exactly {@code pods}, if it would not.
	 * @param pods the pods to drain and remove
	 * @param replicas the replicas it scales to
	 * @return the refusal, empty when the scale-down removes exactly them
	 * @throws KubernetesClientException when the API cannot be asked
	 */
	Optional<String> refusal(List<String> pods, int replicas) {
		OptionalInt current = replicas();
		if (current.isEmpty()) {
			return Optional.of("no " + this.kind.word + " " + this.name + " in namespace " + this.namespace);
		}
		if (this.kind == Kind.STATEFUL_SET) {
			return (replicas < current.getAsInt()) ? Optional.empty()
					: Optional.of("StatefulSet " + this.name + " has " + current.getAsInt() + " replicas: --replicas "
							+ replicas + " removes none");
		}
		if (current.getAsInt() - pods.size() != replicas) {
			return Optional.of("--replicas " + replicas + " would remove " + (current.getAsInt() - replicas)
					+ " pod(s) from Deployment " + this.name + " (it has " + current.getAsInt() + " replicas), but "
					+ pods.size() + " are named (" + String.join(", ", pods) + "): the ReplicaSet would choose the "
					+ "others itself and move their tasks cold. Use --replicas " + (current.getAsInt() - pods.size()));
		}
		List<String> own = podsOfDeployment().stream().map((pod) -> pod.getMetadata().getName()).toList();
		List<String> foreign = pods.stream().filter((pod) -> !own.contains(pod)).toList();
		if (!foreign.isEmpty()) {
			return Optional.of("not pods of Deployment " + this.name + " in namespace " + this.namespace + ": "
					+ String.join(", ", foreign) + " (its pods: " + String.join(", ", own) + ")");
		}
		return Optional.empty();
	}

	/**
	 * Remove the drained pods: a Deployment's get the lowest deletion cost, then the workload is scaled, once.
	 * @param pods the drained pods
	 * @param replicas the replicas it scales to
	 * @return each step taken, as the {@code kubectl} command that does the same
	 * @throws KubernetesClientException when a step fails (the steps before it stay taken)
	 */
	List<String> remove(List<String> pods, int replicas) {
		List<String> done = new ArrayList<>();
		if (this.kind == Kind.DEPLOYMENT) {
			int cost = drainedCost(pods);
			for (String pod : pods) {
				this.client.pods()
					.inNamespace(this.namespace)
					.withName(pod)
					.patch(PatchContext.of(PatchType.JSON_MERGE),
							"{\"metadata\":{\"annotations\":{\"" + DELETION_COST + "\":\"" + cost + "\"}}}");
				done.add(annotateStep(pod, Optional.of(this.namespace), cost));
			}
		}
		String scale = "{\"spec\":{\"replicas\":" + replicas + "}}";
		if (this.kind == Kind.DEPLOYMENT) {
			this.client.apps().deployments().inNamespace(this.namespace).withName(this.name)
				.patch(PatchContext.of(PatchType.JSON_MERGE), scale);
		}
		else {
			this.client.apps().statefulSets().inNamespace(this.namespace).withName(this.name)
				.patch(PatchContext.of(PatchType.JSON_MERGE), scale);
		}
		done.add(scaleStep(this.kind, this.name, Optional.of(this.namespace), replicas));
		return done;
	}

	/**
	 * What {@link #remove} does, for an operator to run: the drained pods get the highest cost drained pods get.
	 * @param kind the workload's kind
	 * @param name its name
	 * @param namespace its namespace, empty for kubectl's own
	 * @param pods the drained pods
	 * @param replicas the replicas it scales to
	 * @return the {@code kubectl} commands
	 */
	static List<String> steps(Kind kind, String name, Optional<String> namespace, List<String> pods, int replicas) {
		List<String> steps = new ArrayList<>();
		if (kind == Kind.DEPLOYMENT) {
			pods.forEach((pod) -> steps.add(annotateStep(pod, namespace, HIGHEST_DRAINED_COST)));
		}
		steps.add(scaleStep(kind, name, namespace, replicas));
		return steps;
	}

	/** Below every other pod's cost, so that exactly the drained pods go first. */
	private int drainedCost(List<String> drained) {
		int lowest = HIGHEST_DRAINED_COST;
		for (Pod pod : podsOfDeployment()) {
			if (drained.contains(pod.getMetadata().getName())) {
				continue;
			}
			Map<String, String> annotations = pod.getMetadata().getAnnotations();
			String cost = (annotations != null) ? annotations.get(DELETION_COST) : null;
			if (cost != null) {
				try {
					lowest = Math.min(lowest, Integer.parseInt(cost.trim()) - 1);
				}
				catch (NumberFormatException ex) {
					// Kubernetes ignores a cost that is no integer: so does this
				}
			}
		}
		return lowest;
	}

	private List<Pod> podsOfDeployment() {
		Deployment deployment = this.client.apps().deployments().inNamespace(this.namespace).withName(this.name).get();
		LabelSelector selector = deployment.getSpec().getSelector();
		return this.client.pods().inNamespace(this.namespace).withLabelSelector(selector).list().getItems();
	}

	private OptionalInt replicas() {
		Integer replicas;
		if (this.kind == Kind.DEPLOYMENT) {
			Deployment deployment = this.client.apps().deployments().inNamespace(this.namespace).withName(this.name).get();
			if (deployment == null) {
				return OptionalInt.empty();
			}
			replicas = deployment.getSpec().getReplicas();
		}
		else {
			StatefulSet statefulSet = this.client.apps().statefulSets().inNamespace(this.namespace).withName(this.name)
				.get();
			if (statefulSet == null) {
				return OptionalInt.empty();
			}
			replicas = statefulSet.getSpec().getReplicas();
		}
		// Kubernetes' default when the spec leaves it out
		return OptionalInt.of((replicas != null) ? replicas : 1);
	}

	private static String annotateStep(String pod, Optional<String> namespace, int cost) {
		return "kubectl annotate pod " + pod + namespaceOption(namespace) + " " + DELETION_COST + "=" + cost
				+ " --overwrite";
	}

	private static String scaleStep(Kind kind, String name, Optional<String> namespace, int replicas) {
		return "kubectl scale " + kind.word.toLowerCase(Locale.ROOT) + " " + name + namespaceOption(namespace)
				+ " --replicas=" + replicas;
	}

	private static String namespaceOption(Optional<String> namespace) {
		return namespace.map((given) -> " -n " + given).orElse("");
	}

	/**
	 * The kinds of workload a scale-down removes pods from.
	 */
	enum Kind {

		DEPLOYMENT("Deployment"), STATEFUL_SET("StatefulSet");

		private final String word;

		Kind(String word) {
			this.word = word;
		}

	}

}
