package io.github.incrementalrebalance.cloudstream;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.uri;

/**
 * The actuator of a test application over HTTP, as an operator's tool calls it.
 */
final class ActuatorClient {

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
	HttpResponse<String> leave(ConfigurableApplicationContext context, String body)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, "/actuator/rebalance/leave"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
