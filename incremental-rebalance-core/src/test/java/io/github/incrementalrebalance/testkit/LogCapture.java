package io.github.incrementalrebalance.testkit;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * Captures what one class logs, for tests that assert a WARN was given.
 */
public final class LogCapture implements AutoCloseable {

	private final Logger logger;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private LogCapture(String name) {
		this.logger = (Logger) LoggerFactory.getLogger(name);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	public static LogCapture of(Class<?> type) {
		return new LogCapture(type.getName());
	}

	/**
	 * Capture what every class of a package logs, whichever of its parts logs it.
	 * @param type a class of the package
	 * @return the capture
	 */
	public static LogCapture ofPackageOf(Class<?> type) {
		return new LogCapture(type.getPackageName());
	}

	/**
	 * Messages logged at a level, formatted.
	 * @param level the level
	 * @return the messages
	 */
	public List<String> messages(Level level) {
		return this.appender.list.stream()
			.filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	@Override
	public void close() {
		this.logger.detachAppender(this.appender);
		this.appender.stop();
	}

}
