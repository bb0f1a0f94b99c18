package io.github.incrementalrebalance.sample;

import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The demo: the sample application in profile {@code demo} (its actuator open), with an in-process broker when no
 * {@code spring.kafka.bootstrap-servers} is given, so that nothing needs installing. It lives with the tests, which
 * also need the broker, and runs with {@code mvn -pl sample-app -am spring-boot:test-run}; the application itself
 * (what you copy) has no test library on its classpath.
 */
public final class DemoApplication {

	private DemoApplication() {
	}

	public static void main(String[] args) {
		new SpringApplicationBuilder(SampleApplication.class).profiles("demo").initializers(new DemoBroker()).run(args);
	}

}
