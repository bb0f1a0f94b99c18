package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.uri;

/**
 * The actuator of a test application over HTTP, as an operator's tool calls it: reads, a leave, a cancel.
 */
final class LeaveEndpointClient {

	private static final String LEAVE = "/actuator/rebalance/leave";

	private final HttpClient http = HttpClient.newHttpClient();

	HttpResponse<String> get(ConfigurableApplicationContext context, String path)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Ask for a leave.
	 * @param context the application
	 * @param body the request's JSON body
	 * @return the answer
	 */
	HttpResponse<String> post(ConfigurableApplicationContext context, String body)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, LEAVE))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Cancel the application's own leave.
	 * @param context the application
	 * @return the answer
	 */
	HttpResponse<String> delete(ConfigurableApplicationContext context) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, LEAVE)).DELETE().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Cancel another member's leave through this application.
	 * @param context the application
	 * @param instanceId the member
	 * @return the answer
	 */
	HttpResponse<String> delete(ConfigurableApplicationContext context, String instanceId)
			throws IOException, InterruptedException {
		return this.http.send(
				HttpRequest.newBuilder(uri(context, LEAVE + "?instanceId=" + instanceId)).DELETE().build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
