package io.github.incrementalrebalance.identity;

import java.time.Instant;
import java.util.Optional;

import io.github.incrementalrebalance.planner.RebalancingMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Who a member is: any pod name works as its instance id, the identity travels in client tags, and a name no id can
 * stand for is refused with what is accepted.
 */
class MemberIdentityTests {

	private static final String POD = "orders-enrichment-streams-processor-deployment-6f7b9c8d4f-x2k4q";

	@Test
	void aNameThatFitsIsItsOwnId() {
		assertThat(MemberIdentity.instanceIdOf("pod-7")).isEqualTo("pod-7");
		assertThat(MemberIdentity.instanceIdOf("a".repeat(30))).isEqualTo("a".repeat(30));
	}

	@Test
	void aLongerNameIsShortenedAlikeEverywhereAndTwoNamesKeepTwoIds() {
		String id = MemberIdentity.instanceIdOf(POD);
		assertThat(id).hasSize(30).startsWith(POD.substring(0, 21) + "-").matches("[A-Za-z0-9._-]{30}");
		assertThat(MemberIdentity.instanceIdOf(POD)).as("the same name, the same id").isEqualTo(id);
		String sibling = POD.substring(0, POD.length() - 5) + "z9k7m";
		assertThat(MemberIdentity.instanceIdOf(sibling)).as("another pod of the same Deployment").isNotEqualTo(id);
		assertThat(MemberIdentity.instanceIdFor(Optional.of(POD))).isEqualTo(id);
	}

	@Test
	void anIdentityOfALongNameTravelsInClientTags() {
		MemberIdentity identity = MemberIdentity.newIncarnation(MemberIdentity.instanceIdOf(POD),
				RebalancingMode.INCREMENTAL, Instant.parse("2026-12-02T10:00:00Z"));
		assertThat(identity.clientTags().values()).allSatisfy((value) -> assertThat(value).hasSizeLessThanOrEqualTo(30));
		assertThat(MemberIdentity.fromClientTags(identity.clientTags())).contains(identity);
	}

	@Test
	void aNameNoIdCanStandForIsRefusedWithWhatIsAccepted() {
		assertThatIllegalArgumentException().isThrownBy(() -> MemberIdentity.instanceIdOf("b; rm"))
			.withMessage("instance id 'b; rm' is invalid: use 1 to 253 characters of A-Z, a-z, 0-9, '.', '_' and '-' "
					+ "(one longer than 30 is shortened to its first 21 characters and a hash of the whole)");
		assertThatIllegalArgumentException().isThrownBy(() -> MemberIdentity.instanceIdOf(""));
		assertThatIllegalArgumentException().isThrownBy(() -> MemberIdentity.instanceIdOf("a".repeat(254)));
	}

}
