package io.github.incrementalrebalance.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * On Kubernetes (as Spring Boot detects it: {@code KUBERNETES_SERVICE_HOST} and {@code KUBERNETES_SERVICE_PORT}, or
 * {@code spring.main.cloud-platform=kubernetes}), the settings a pod needs for warm scale-ins and rollouts, as defaults
 * of the lowest precedence, so that every value of the application's own wins:
 * <ul>
 * <li>{@code drain.on-shutdown=true}: the SIGTERM of a scale-in, a rollout or a node drain hands the tasks over to
 * warm learners first;</li>
 * <li>{@code drain.on-drained=stop-streams}: a pod asked to leave stays up, not ready and out of the group, until a
 * scale-down removes it (exiting, it would be restarted in place and join again as a new member);</li>
 * <li>{@code readiness.warm=true} with {@code readiness.timeout=8m}: a rollout replaces an old pod only once the new one
 * holds its share with its state, within a Deployment's default {@code progressDeadlineSeconds} (600 s, of which two
 * minutes are left to scheduling, the image pull and the start).</li>
 * </ul>
 * Off Kubernetes nothing changes. Which defaults applied is logged once at start.
 */
public final class KubernetesDefaults implements EnvironmentPostProcessor, Ordered {

	/** The property source's name. */
	public static final String PROPERTY_SOURCE_NAME = "incrementalRebalanceKubernetesDefaults";

	static final Map<String, Object> DEFAULTS;

	static {
		Map<String, Object> defaults = new LinkedHashMap<>();
		defaults.put("incremental-rebalance.drain.on-shutdown", "true");
		defaults.put("incremental-rebalance.drain.on-drained", "stop-streams");
		defaults.put("incremental-rebalance.readiness.warm", "true");
		defaults.put("incremental-rebalance.readiness.timeout", "8m");
		DEFAULTS = Collections.unmodifiableMap(defaults);
	}

	private final Log logger;

	public KubernetesDefaults(DeferredLogFactory logs) {
		this.logger = logs.getLog(KubernetesDefaults.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!CloudPlatform.KUBERNETES.isActive(environment)
				|| environment.getPropertySources().contains(PROPERTY_SOURCE_NAME)) {
			return;
		}
		Binder binder = Binder.get(environment);
		Map<String, Object> applied = new LinkedHashMap<>();
		DEFAULTS.forEach((key, value) -> {
			if (!binder.bind(key, String.class).isBound()) {
				applied.put(key, value);
			}
		});
		environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, applied));
		if (!applied.isEmpty()) {
			this.logger.info("Running on Kubernetes: " + applied + ", as the application does not set them (it sets "
					+ DEFAULTS.keySet().stream().filter((key) -> !applied.containsKey(key)).toList() + ")");
		}
	}

	/** After the application's configuration files are read, so that its own values are known. */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
