package io.github.incrementalrebalance.sample;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends a page view of a random user every few milliseconds while the application runs (switch it off with
 * {@code sample.generate=false}).
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.generate", matchIfMissing = true)
class PageViewGenerator implements SmartLifecycle {

	private static final Duration PAUSE = Duration.ofMillis(5);

	private final KafkaTemplate<String, String> template;

	private volatile Thread thread;

	PageViewGenerator(KafkaTemplate<String, String> template) {
		this.template = template;
	}

	@Override
	public void start() {
		Thread generator = new Thread(this::generate, "page-view-generator");
		generator.setDaemon(true);
		generator.start();
		this.thread = generator;
	}

	private void generate() {
		while (!Thread.currentThread().isInterrupted()) {
			String user = "user-" + ThreadLocalRandom.current().nextInt(10_000);
			this.template.send(PageViews.INPUT, user, "/page/" + ThreadLocalRandom.current().nextInt(100));
			try {
				Thread.sleep(PAUSE.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void stop() {
		Thread generator = this.thread;
		if (generator != null) {
			generator.interrupt();
			try {
				generator.join(PAUSE.multipliedBy(100).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.thread = null;
	}

	@Override
	public boolean isRunning() {
		return this.thread != null;
	}

}
