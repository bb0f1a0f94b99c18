package io.github.incrementalrebalance.control;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LeaveAskTests {

	private static final Map<String, List<String>> STREAMS_GROUP = Map.of("a", List.of("a1"), "b", List.of("b1"),
			"twin", List.of("t1", "t2"));

	@Test
	void inAStreamsGroupAMemberIsAskedByItsStartAndAnUnknownOrSharedIdIsRefused() {
		List<LeaveAsk> asks = LeaveAsk.decideInStreamsGroup(STREAMS_GROUP, List.of("b", "z", "twin"), false);

		assertThat(asks).extracting(LeaveAsk::incarnation).containsExactly(Optional.of("b1"), Optional.empty(),
				Optional.of("t1"));
		assertThat(asks).extracting(LeaveAsk::refusal).containsExactly(Optional.empty(),
				Optional.of(LeaveAsk.Refusal.UNKNOWN_INSTANCE), Optional.of(LeaveAsk.Refusal.DUPLICATE_INSTANCE_ID));
		assertThat(asks.get(1).describeRefusal("app")).hasValueSatisfying((why) -> assertThat(why)
			.contains("unknown instance id 'z'").contains("under the streams protocol: in the group"));
	}

	@Test
	void inAStreamsGroupAskingEveryInstanceIsRefusedUnlessForced() {
		Map<String, List<String>> two = Map.of("a", List.of("a1"), "b", List.of("b1"));

		assertThat(LeaveAsk.decideInStreamsGroup(two, List.of("a", "b"), false)).extracting(LeaveAsk::refusal)
			.containsOnly(Optional.of(LeaveAsk.Refusal.NO_MEMBER_WOULD_STAY));
		assertThat(LeaveAsk.decideInStreamsGroup(two, List.of("a", "b"), true)).extracting(LeaveAsk::refusal)
			.containsOnly(Optional.empty());
		assertThat(LeaveAsk.decideInStreamsGroup(two, List.of("a"), false)).extracting(LeaveAsk::refusal)
			.containsOnly(Optional.empty());
	}

}
