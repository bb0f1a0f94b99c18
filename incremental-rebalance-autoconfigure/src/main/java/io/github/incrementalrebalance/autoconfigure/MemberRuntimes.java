package io.github.incrementalrebalance.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;

import org.springframework.beans.factory.DisposableBean;

/**
 * The member runtimes of the application's Kafka Streams, one per {@code StreamsBuilderFactoryBean}; closed with the
 * context.
 */
public class MemberRuntimes implements DisposableBean {

	private final Map<String, MemberRuntime> byFactoryBean = new LinkedHashMap<>();

	synchronized void register(String factoryBeanName, MemberRuntime runtime) {
		this.byFactoryBean.put(factoryBeanName, runtime);
	}

	/**
	 * The runtimes, in the order their factory beans were created.
	 * @return the runtimes
	 */
	public synchronized List<MemberRuntime> all() {
		return List.copyOf(this.byFactoryBean.values());
	}

	synchronized Map<String, MemberRuntime> byFactoryBean() {
		return Map.copyOf(this.byFactoryBean);
	}

	/**
	 * Whether every member is in a state.
	 * @param state the state
	 * @return true when all are (also when there are none)
	 */
	public boolean allAre(MemberState state) {
		return all().stream().allMatch((runtime) -> runtime.state() == state);
	}

	/**
	 * Whether any member is in a state.
	 * @param state the state
	 * @return true when one is
	 */
	public boolean anyIs(MemberState state) {
		return all().stream().anyMatch((runtime) -> runtime.state() == state);
	}

	@Override
	public void destroy() {
		all().forEach(MemberRuntime::close);
	}

}
