package io.github.incrementalrebalance.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.beans.factory.DisposableBean;

/**
 * The member runtimes of the application's Kafka Streams, one per {@code StreamsBuilderFactoryBean}; closed with the
 * context.
 */
public class MemberRuntimes implements DisposableBean {

	private final List<MemberRuntime> runtimes = new CopyOnWriteArrayList<>();

	void register(MemberRuntime runtime) {
		this.runtimes.add(runtime);
	}

	/**
	 * The runtimes, in the order their factory beans were configured.
	 * @return the runtimes
	 */
	public List<MemberRuntime> all() {
		return List.copyOf(this.runtimes);
	}

	@Override
	public void destroy() {
		this.runtimes.forEach(MemberRuntime::close);
	}

}
