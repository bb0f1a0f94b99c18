package io.github.incrementalrebalance.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;

import org.springframework.beans.factory.DisposableBean;

/**
 * The member runtimes of the application's Kafka Streams, one per {@code StreamsBuilderFactoryBean}; closed with the
 * context.
 */
public class MemberRuntimes implements DisposableBean {

	private final Map<String, MemberRuntime> byFactoryBean = new LinkedHashMap<>();

	private final List<Consumer<MemberRuntime>> whenRegistered = new ArrayList<>();

	void register(String factoryBeanName, MemberRuntime runtime) {
		List<Consumer<MemberRuntime>> actions;
		synchronized (this) {
			this.byFactoryBean.put(factoryBeanName, runtime);
			actions = List.copyOf(this.whenRegistered);
		}
		actions.forEach((action) -> action.accept(runtime));
	}

	/**
	 * Act on every runtime: those registered now, and each one registered later (a factory bean created after the
	 * context refreshed, as a binder may), once.
	 * @param action what to do with each
	 */
	public void forEachNowAndLater(Consumer<MemberRuntime> action) {
		List<MemberRuntime> now;
		synchronized (this) {
			this.whenRegistered.add(action);
			now = List.copyOf(this.byFactoryBean.values());
		}
		now.forEach(action);
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
