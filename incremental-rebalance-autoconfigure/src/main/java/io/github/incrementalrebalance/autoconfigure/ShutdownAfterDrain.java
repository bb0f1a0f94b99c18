package io.github.incrementalrebalance.autoconfigure;

import java.util.function.Supplier;

import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceProperties.OnDrained;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code incremental-rebalance.drain.on-drained=shutdown}: once every member left its group and closed, the application
 * context closes, as Boot's shutdown endpoint closes it: on a thread of its own, since the member's closing thread
 * must not wait for itself. Kafka Streams are closed already; the web server stops last. The setting is read then,
 * not as a bean condition, so that an AOT-processed application honours the value it runs with.
 */
class ShutdownAfterDrain implements MemberRuntimeCustomizer {

	private static final Logger logger = LoggerFactory.getLogger(ShutdownAfterDrain.class);

	private final ConfigurableApplicationContext context;

	private final MemberRuntimes runtimes;

	private final Supplier<IncrementalRebalanceProperties> properties;

	ShutdownAfterDrain(ConfigurableApplicationContext context, MemberRuntimes runtimes,
			Supplier<IncrementalRebalanceProperties> properties) {
		this.context = context;
		this.runtimes = runtimes;
		this.properties = properties;
	}

	@Override
	public void customize(MemberRuntime runtime) {
		runtime.addStateListener((state) -> {
			if (state == MemberState.CLOSED && this.runtimes.allAre(MemberState.CLOSED)
					&& this.properties.get().drain().onDrained() == OnDrained.SHUTDOWN) {
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
