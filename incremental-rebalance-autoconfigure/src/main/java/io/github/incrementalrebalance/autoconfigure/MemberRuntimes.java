package io.github.incrementalrebalance.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;

import org.springframework.beans.factory.DisposableBean;

/**
 * The member runtimes of the application's Kafka Streams, one per {@code StreamsBuilderFactoryBean}; closed with the
 * context.
 */
public class MemberRuntimes implements DisposableBean {

	private final List<MemberRuntime> runtimes = new CopyOnWriteArrayList<>();

	private final Map<String, MemberRuntime> byFactoryBean = new ConcurrentHashMap<>();

	void register(String factoryBeanName, MemberRuntime runtime) {
		this.runtimes.add(runtime);
		this.byFactoryBean.put(factoryBeanName, runtime);
	}

	/**
	 * The runtimes, in the order their factory beans were created.
	 * @return the runtimes
	 */
	public List<MemberRuntime> all() {
		return List.copyOf(this.runtimes);
	}

	Map<String, MemberRuntime> byFactoryBean() {
		return Map.copyOf(this.byFactoryBean);
	}

	/**
	 * Whether every member is in a state.
	 * @param state the state
	 * @return true when all are (also when there are none)
	 */
	public boolean allAre(MemberState state) {
		return this.runtimes.stream().allMatch((runtime) -> runtime.state() == state);
	}

	@Override
	public void destroy() {
		this.runtimes.forEach(MemberRuntime::close);
	}

}
