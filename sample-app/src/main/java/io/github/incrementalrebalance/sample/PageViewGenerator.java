package io.github.incrementalrebalance.sample;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends a page view of a random user every few milliseconds while the application runs (switch it off with
 * {@code sample.generate=false}). The switch is read at start, not as a bean condition, so that the application
 * processed ahead of time (Spring AOT) honours the value it runs with.
 */
@Component
class PageViewGenerator implements SmartLifecycle {

	private static final Duration PAUSE = Duration.ofMillis(5);

	private final KafkaTemplate<String, String> template;

	private final boolean generate;

	private volatile Thread thread;

	PageViewGenerator(KafkaTemplate<String, String> template,
			@Value("${sample.generate:true}") boolean generate) {
		this.template = template;
		this.generate = generate;
	}

	@Override
	public void start() {
		if (!this.generate) {
			return;
		}
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
