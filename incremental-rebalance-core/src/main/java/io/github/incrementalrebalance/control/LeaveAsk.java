package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Asking members to leave from outside them (the command line, another instance's endpoint or page): whether the last
 * plan allows each request, decided the same way wherever it is asked. Nothing is read or written here.
 *
 * @param instanceId the member asked to leave
 * @param incarnation its start in the last plan, which the request names
 * @param refusal why it may not be asked, if it may not
 */
public record LeaveAsk(String instanceId, Optional<String> incarnation, Optional<Refusal> refusal) {

	public LeaveAsk {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(refusal, "refusal");
	}

	/**
	 * Decide requests against the last plan.
	 * @param plans the last plan, one record per member start
	 * @param epoch the last plan's epoch, empty before any plan
	 * @param instanceIds the members to ask
	 * @param force ask even when no member of the plan would stay
	 * @return one decision per member asked, in order
	 */
	public static List<LeaveAsk> decide(List<PlanRecord> plans, Optional<PlanEpoch> epoch,
			Collection<String> instanceIds, boolean force) {
		boolean noneWouldStay = epoch.isPresent() && plans.stream()
			.noneMatch((plan) -> !plan.plan().leaving() && !instanceIds.contains(plan.instanceId()));
		List<String> shared = epoch.map(PlanEpoch::duplicateInstanceIds).orElse(List.of());
		List<LeaveAsk> decisions = new ArrayList<>();
		for (String instanceId : instanceIds) {
			Optional<String> incarnation = plans.stream()
				.filter((plan) -> plan.instanceId().equals(instanceId))
				.map(PlanRecord::incarnation)
				.findFirst();
			Optional<Refusal> refusal = incarnation.isEmpty() ? Optional.of(Refusal.UNKNOWN_INSTANCE)
					: shared.contains(instanceId) ? Optional.of(Refusal.DUPLICATE_INSTANCE_ID)
							: (noneWouldStay && !force) ? Optional.of(Refusal.NO_MEMBER_WOULD_STAY) : Optional.empty();
			decisions.add(new LeaveAsk(instanceId, incarnation, refusal));
		}
		return decisions;
	}

	/**
	 * Decide requests in a group under Kafka's streams protocol, where no plan names the members: against the starts
	 * the broker describes ({@link StreamsGroupStarts}).
	 * @param starts each instance id in the group with the incarnations of its live starts
	 * @param instanceIds the members to ask
	 * @param force ask even when no other instance would stay
	 * @return one decision per member asked, in order
	 */
	public static List<LeaveAsk> decideInStreamsGroup(Map<String, List<String>> starts, Collection<String> instanceIds,
			boolean force) {
		boolean noneWouldStay = instanceIds.containsAll(starts.keySet());
		List<LeaveAsk> decisions = new ArrayList<>();
		for (String instanceId : instanceIds) {
			List<String> incarnations = starts.getOrDefault(instanceId, List.of());
			Optional<Refusal> refusal = incarnations.isEmpty() ? Optional.of(Refusal.UNKNOWN_INSTANCE)
					: (incarnations.size() > 1) ? Optional.of(Refusal.DUPLICATE_INSTANCE_ID)
							: (noneWouldStay && !force) ? Optional.of(Refusal.NO_MEMBER_WOULD_STAY) : Optional.empty();
			decisions.add(new LeaveAsk(instanceId, incarnations.stream().findFirst(), refusal));
		}
		return decisions;
	}

	/**
	 * The request to write, when it is allowed.
	 * @param now when it is asked, on the asker's clock
	 * @param timeout how long the member may wait for its learners; empty for its own drain timeout
	 * @param source who asks
	 * @return the leave record, empty when refused
	 */
	public Optional<LeaveRecord> request(Instant now, Optional<Duration> timeout, String source) {
		if (this.refusal.isPresent()) {
			return Optional.empty();
		}
		return Optional.of(LeaveRecord.request(this.instanceId, this.incarnation.orElseThrow(), now, timeout, source));
	}

	/**
	 * Why the request was refused, for people.
	 * @param applicationId the application, to name it
	 * @return the reason, empty when allowed
	 */
	public Optional<String> describeRefusal(String applicationId) {
		return this.refusal.map((refusal) -> switch (refusal) {
			case UNKNOWN_INSTANCE -> "unknown instance id '" + this.instanceId + "': no member of " + applicationId
					+ " has that id in the last plan (under the streams protocol: in the group)";
			case DUPLICATE_INSTANCE_ID -> "instance id '" + this.instanceId + "' is used by two live members: give each "
					+ "its own incremental.rebalance.instance.id before asking one to leave";
			case NO_MEMBER_WOULD_STAY -> "no member of " + applicationId + " would stay in the group: the "
					+ "leaving instances' tasks would have nowhere to go. Start other instances first, or force the leave";
		});
	}

	/**
	 * Why a member may not be asked to leave.
	 */
	public enum Refusal {

		/** No member of the last plan has the id. */
		UNKNOWN_INSTANCE,

		/** Two live members have the id. */
		DUPLICATE_INSTANCE_ID,

		/** No member of the last plan would stay, and the leave is not forced. */
		NO_MEMBER_WOULD_STAY

	}

}
