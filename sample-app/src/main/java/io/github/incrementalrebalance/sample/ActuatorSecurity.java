package io.github.incrementalrebalance.sample;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.AndRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Who may do what on the actuator. Health and its probes are open (Kubernetes asks without credentials), and so is the
 * Prometheus scrape (on the management port, which the Service does not expose); reading the other endpoints needs a
 * user; asking a member to leave or cancelling a leave ({@code POST} and {@code DELETE} on
 * {@code /actuator/rebalance/leave}) needs the role {@value #OPERATOR}: with {@code drain.on-drained: shutdown} a
 * leave ends the application. Users authenticate with HTTP basic, without a session; the demo profile opens everything.
 */
@Configuration(proxyBeanMethods = false)
class ActuatorSecurity {

	/** The role that may ask members to leave. */
	static final String OPERATOR = "REBALANCE_OPERATOR";

	@Bean
	@Profile("!demo")
	SecurityFilterChain actuatorFilterChain(HttpSecurity http) throws Exception {
		RequestMatcher rebalanceWrites = new AndRequestMatcher(EndpointRequest.to("rebalance"),
				(request) -> !HttpMethod.GET.matches(request.getMethod()));
		return http.securityMatcher(EndpointRequest.toAnyEndpoint())
			.authorizeHttpRequests((requests) -> requests
				.requestMatchers(EndpointRequest.to(HealthEndpoint.class), EndpointRequest.to("prometheus"))
				.permitAll()
				.requestMatchers(rebalanceWrites)
				.hasRole(OPERATOR)
				.anyRequest()
				.authenticated())
			.httpBasic(Customizer.withDefaults())
			// Spring Security's advice for a service that only non-browser clients call: with HTTP basic and no
			// session there is no cookie a forged cross-site request could ride on, so no CSRF token is asked for
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.csrf(AbstractHttpConfigurer::disable)
			.build();
	}

	/**
	 * The operator (may leave and cancel) and, when its password is set, a viewer (may read).
	 * @param operatorPassword {@code sample.security.operator-password}: required, start-up stops without it
	 * @param viewerPassword {@code sample.security.viewer-password}
	 * @return the users
	 */
	@Bean
	@Profile("!demo")
	InMemoryUserDetailsManager actuatorUsers(@Value("${sample.security.operator-password}") String operatorPassword,
			@Value("${sample.security.viewer-password:}") String viewerPassword) {
		PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
		List<UserDetails> users = new ArrayList<>();
		users.add(User.withUsername("operator").password(encoder.encode(operatorPassword)).roles(OPERATOR).build());
		if (!viewerPassword.isEmpty()) {
			users.add(User.withUsername("viewer").password(encoder.encode(viewerPassword)).roles("VIEWER").build());
		}
		return new InMemoryUserDetailsManager(users);
	}

	/**
	 * The demo runs on a developer's machine: every endpoint open, as without Spring Security.
	 * @param http the security builder
	 * @return the open chain
	 * @throws Exception when it cannot be built
	 */
	@Bean
	@Profile("demo")
	SecurityFilterChain openDemo(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.csrf(AbstractHttpConfigurer::disable)
			.build();
	}

}
