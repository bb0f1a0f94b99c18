package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control topic at 10, 100 and 300 members and 1 000 and 10 000 tasks, and a start over 1 000 and 10 000
 * generations of history ({@link ControlTopicScale}). The results go to {@code control-topic-scale.json} (stamped), which
 * the benchmarks page's tables are made from. Run on demand: see {@code benchmarks/README.md}.
 */
@Tag(TestTags.BROKER)
class ControlTopicScaleBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@Test
	void controlTopicAtScale() throws Exception {
		ControlTopicScale scale = new ControlTopicScale(broker);
		List<ControlTopicScale.Result> results = new ArrayList<>();
		for (int members : List.of(10, 100, 300)) {
			for (int tasks : List.of(1_000, 10_000)) {
				results.add(scale.live(members, tasks, 20, Duration.ofSeconds(10)));
			}
		}
		List<ControlTopicScale.History> histories = List.of(scale.history(10, 1_000, 1_000),
				scale.history(10, 1_000, 10_000), scale.history(100, 10_000, 1_000),
				scale.history(300, 10_000, 1_000));
		StringBuilder table = new StringBuilder(ControlTopicScale.Result.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		table.append("\n\n").append(ControlTopicScale.History.header());
		histories.forEach((history) -> table.append('\n').append(history.row()));
		ResultsFile.append("Control topic at scale, " + Instant.now(), table.toString());
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve(ControlTopicScale.Run.FILE),
				new ControlTopicScale.Run(Instant.now().toString(), results, histories));

		assertThat(results).filteredOn((result) -> result.members() == 300 && result.tasks() == 10_000)
			.singleElement()
			.satisfies((result) -> assertThat(result.maxUntilAllHaveIt()).as("every member has its plan")
				.isLessThan(Duration.ofSeconds(1)));
		assertThat(histories.get(1).read()).as("a start over 10 000 generations").isLessThan(Duration.ofSeconds(2));
	}

}
