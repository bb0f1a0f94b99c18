package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.incrementalrebalance.identity.MemberIdentity;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;

/**
 * The member starts of a group under Kafka's streams protocol, as the broker describes it: there no leader publishes
 * a plan, so the group's description is where an operator's tool finds who is in it (each start by the client tags
 * this library sets). For the command line, which may wait for the cluster.
 */
public final class StreamsGroupStarts {

	private StreamsGroupStarts() {
	}

	/**
	 * @param admin an admin client of the cluster
	 * @param groupId the group (the application id)
	 * @param timeout how long the cluster may take to answer
	 * @return each instance id of the group with its starts' incarnations (two for an id two live starts share);
	 * empty when the group is not a streams group with members, or could not be described
	 */
	public static Optional<Map<String, List<String>>> describe(Admin admin, String groupId, Duration timeout) {
		StreamsGroupDescription group;
		try {
			group = admin
				.describeStreamsGroups(List.of(groupId),
						new DescribeStreamsGroupsOptions().timeoutMs((int) timeout.toMillis()))
				.all()
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(groupId);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			// a classic group is no streams group: the caller keeps to the plan
			return Optional.empty();
		}
		Map<String, List<String>> starts = new TreeMap<>();
		for (StreamsGroupMemberDescription member : group.members()) {
			MemberIdentity.fromClientTags(member.clientTags()).ifPresent((identity) -> {
				List<String> incarnations = starts.computeIfAbsent(identity.instanceId(), (id) -> new ArrayList<>());
				// one member per stream thread: a start counts once
				if (!incarnations.contains(identity.incarnation())) {
					incarnations.add(identity.incarnation());
				}
			});
		}
		return starts.isEmpty() ? Optional.empty() : Optional.of(starts);
	}

}
