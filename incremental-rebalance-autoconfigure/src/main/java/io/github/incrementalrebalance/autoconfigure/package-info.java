/**
 * Auto-configuration of incremental-rebalance for Spring Boot applications using Kafka Streams.
 */
@NullMarked
package io.github.incrementalrebalance.autoconfigure;

import org.jspecify.annotations.NullMarked;
