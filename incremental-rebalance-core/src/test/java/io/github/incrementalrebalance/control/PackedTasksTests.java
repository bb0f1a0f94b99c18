package io.github.incrementalrebalance.control;

import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PackedTasksTests {

	@Property(tries = 300)
	void anySetOfTasksUnpacksAsItWasPacked(
			@ForAll @Size(max = 200) Set<@IntRange(max = 40) Integer> subtopologies,
			@ForAll @Size(max = 200) Set<@IntRange(max = Integer.MAX_VALUE - 1) Integer> partitions) {
		SortedSet<TaskId> tasks = new TreeSet<>();
		for (int subtopology : subtopologies) {
			for (int partition : partitions) {
				if ((subtopology + partition) % 3 != 0) {
					tasks.add(new TaskId(subtopology, partition));
				}
			}
		}
		assertThat(PackedTasks.unpackTasks(PackedTasks.pack(tasks))).isEqualTo(tasks);
	}

	@Property(tries = 300)
	void anyLagsUnpackAsTheyWerePacked(@ForAll @Size(max = 500) List<@LongRange(max = Long.MAX_VALUE) Long> packed) {
		long[] lags = packed.stream().mapToLong(Long::longValue).toArray();
		assertThat(PackedTasks.unpackLags(PackedTasks.pack(lags), lags.length)).isEqualTo(lags);
	}

	@Test
	void aDenseSetCostsLessThanAByteATask() {
		SortedSet<TaskId> tasks = new TreeSet<>();
		for (int partition = 0; partition < 100_000; partition++) {
			tasks.add(new TaskId(partition % 4, partition));
		}
		assertThat(PackedTasks.pack(tasks)).startsWith(PackedTasks.PREFIX).hasSizeLessThan(1_000);
	}

	/** A member's share of a group is a few bytes: inflating them would cost its readers more than they save. */
	@Test
	void aFewTasksAreNotDeflated() {
		assertThat(PackedTasks.pack(Set.of(new TaskId(0, 3), new TaskId(0, 303), new TaskId(1, 3))))
			.isEqualTo(PackedTasks.PLAIN + "AAIDqwIBAQM");
	}

	@Test
	void aTaskOfANamedTopologyIsNotPacked() {
		assertThat(PackedTasks.canPack(Set.of(new TaskId(0, 1), new TaskId(0, 2, "orders")))).isFalse();
		assertThat(PackedTasks.canPack(Set.of(new TaskId(0, 1)))).isTrue();
	}

	@Test
	void aValueThatClaimsMoreThanItHoldsIsRefusedNamingWhy() {
		// varints 0 (subtopology), 3 (tasks), then one partition only
		String truncated = PackedTasks.pack(new long[] { 0, 3, 7 });
		assertThatIllegalArgumentException().isThrownBy(() -> PackedTasks.unpackTasks(truncated))
			.withMessage("ends inside a number");
		String overflowing = PackedTasks.pack(new long[] { 0, 2, Integer.MAX_VALUE, Integer.MAX_VALUE });
		assertThatIllegalArgumentException().isThrownBy(() -> PackedTasks.unpackTasks(overflowing))
			.withMessage("holds a task number past the largest int");
	}

}
