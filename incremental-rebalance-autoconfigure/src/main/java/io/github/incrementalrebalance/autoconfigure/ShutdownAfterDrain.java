package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code incremental-rebalance.drain.on-drained=shutdown}: once every member left its group and closed, the application
 * context closes, as Boot's shutdown endpoint closes it: on a thread of its own, since the member's closing thread
 * must not wait for itself. Kafka Streams are closed already; the web server stops last.
 */
class ShutdownAfterDrain implements MemberRuntimeCustomizer {

	private static final Logger logger = LoggerFactory.getLogger(ShutdownAfterDrain.class);

	private final ConfigurableApplicationContext context;

	private final MemberRuntimes runtimes;

	ShutdownAfterDrain(ConfigurableApplicationContext context, MemberRuntimes runtimes) {
		this.context = context;
		this.runtimes = runtimes;
	}

	@Override
	public void customize(MemberRuntime runtime) {
		runtime.addStateListener((state) -> {
			if (state == MemberState.CLOSED && this.runtimes.allAre(MemberState.CLOSED)) {
				close();
			}
		});
	}

	private void close() {
		logger.info("Kafka Streams left the group: closing the application");
		Thread closer = new Thread(this.context::close, "incremental-rebalance-shutdown");
		closer.setContextClassLoader(ShutdownAfterDrain.class.getClassLoader());
		closer.start();
	}

}
