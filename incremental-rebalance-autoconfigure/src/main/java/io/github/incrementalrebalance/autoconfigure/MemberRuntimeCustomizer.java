package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.member.MemberRuntime;

/**
 * Callback for beans that act on the {@link MemberRuntime} of each {@code StreamsBuilderFactoryBean} once it is
 * wired, before its Kafka Streams start: typically to add a state listener.
 */
@FunctionalInterface
public interface MemberRuntimeCustomizer {

	/**
	 * Customize the runtime.
	 * @param runtime the runtime of one factory bean's Kafka Streams
	 */
	void customize(MemberRuntime runtime);

}
