package io.github.incrementalrebalance.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One assignment at the sizes of Kafka's own {@code StreamsAssignmentScaleTest} (its high-availability and sticky
 * grids: a large partition count, many instances, many standbys, many threads per instance) and at 10 000 tasks over
 * 1 000 instances: the learner assignor against Kafka's sticky assignor. Every result must pass Kafka's validation. The
 * results go to {@code assignor-scale.json} (stamped), which the benchmarks page's table is made from. Run on demand:
 * see {@code benchmarks/README.md}.
 */
class AssignorScaleBenchmark {

	@Test
	void oneAssignmentAtScale() {
		StringBuilder table = new StringBuilder(AssignorScale.Result.header());
		List<AssignorScale.Result> all = new ArrayList<>();
		for (AssignorScale.Size size : List.of(new AssignorScale.Size(6_000, 2, 1, 1),
				new AssignorScale.Size(2_000, 2, 1, 1), new AssignorScale.Size(1_000, 1_000, 1, 1),
				new AssignorScale.Size(1_000, 1_000, 1, 0),
				new AssignorScale.Size(1_000, 100, 1, 50), new AssignorScale.Size(1_000, 100, 1, 20),
				new AssignorScale.Size(1_000, 10, 1_000, 1), new AssignorScale.Size(10_000, 1_000, 1, 1),
				new AssignorScale.Size(1_000, 100, 1, 1, 3), new AssignorScale.Size(3_000, 100, 1, 1, 3),
				new AssignorScale.Size(1_000, 300, 1, 1, 3))) {
			List<AssignorScale.Result> results = AssignorScale.run(size);
			results.forEach((result) -> table.append('\n').append(result.row()));
			all.addAll(results);
			assertThat(results).allSatisfy((result) -> assertThat(result.error()).isEqualTo(AssignmentError.NONE));
		}
		ResultsFile.append("Assignor at scale, " + Instant.now(), table.toString());
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve(AssignorScale.Run.FILE),
				new AssignorScale.Run(Instant.now().toString(), all));
	}

}
