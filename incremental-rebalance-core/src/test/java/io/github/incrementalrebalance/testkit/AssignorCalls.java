package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;

/**
 * Every assignment computed in a group, with the instance that led it: the count of rebalances that reached the
 * assignor. Handed to {@link CountingTaskAssignor} through the Streams config under {@link #CONFIG}.
 */
public final class AssignorCalls {

	/** Streams config key under which the assignor finds this object. */
	public static final String CONFIG = "testkit.assignor.calls";

	private final List<String> leaders = new CopyOnWriteArrayList<>();

	void record(String leader) {
		this.leaders.add(leader);
	}

	public int count() {
		return this.leaders.size();
	}

	/**
	 * Wait until no assignment has been computed for a while, and return how many there were.
	 * @param quiet how long no call may come
	 * @return the count once quiet
	 */
	public int awaitQuiet(Duration quiet) {
		AtomicInteger last = new AtomicInteger(-1);
		await("no assignment for " + quiet).during(quiet).atMost(quiet.multipliedBy(10).plusSeconds(30))
			.until(() -> last.getAndSet(count()) == count());
		return count();
	}

}
