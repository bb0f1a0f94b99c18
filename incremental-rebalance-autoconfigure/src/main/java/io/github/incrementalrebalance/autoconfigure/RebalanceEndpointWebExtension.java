package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.autoconfigure.RebalanceEndpoint.Action;
import io.github.incrementalrebalance.autoconfigure.RebalanceEndpoint.LeaveResult;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link RebalanceEndpoint}'s leave over HTTP: 202 when a leave starts, 200 for a repeat, 400 with the reason for
 * a bad field (in the body, whatever Boot's error settings), 409 when Kafka Streams does not run, the instance id is
 * used twice or no other member would stay (unless {@code "force": true}), 503 when the control topic cannot be
 * written; its cancel answers 200, 409 when nothing was leaving, 503 when the cancel cannot be written.
 */
@EndpointWebExtension(endpoint = RebalanceEndpoint.class)
public class RebalanceEndpointWebExtension {

	private final RebalanceEndpoint endpoint;

	public RebalanceEndpointWebExtension(RebalanceEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	@WriteOperation
	public WebEndpointResponse<Object> leave(@Selector Action action, @Nullable String timeout, @Nullable String wait,
			@Nullable Boolean force) {
		return response(this.endpoint.leave(action, timeout, wait, force));
	}

	@DeleteOperation
	public WebEndpointResponse<Object> cancel(@Selector Action action) {
		return response(this.endpoint.cancel(action));
	}

	private static WebEndpointResponse<Object> response(LeaveResult result) {
		return switch (result.outcome()) {
			case STARTED -> new WebEndpointResponse<>(result.members(), 202);
			case ALREADY_LEAVING, CANCELLED -> new WebEndpointResponse<>(result.members(),
					WebEndpointResponse.STATUS_OK);
			case INVALID -> problem(result, WebEndpointResponse.STATUS_BAD_REQUEST);
			case REFUSED, NOTHING_TO_CANCEL -> problem(result, 409);
			case UNAVAILABLE -> problem(result, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		};
	}

	private static WebEndpointResponse<Object> problem(LeaveResult result, int status) {
		return new WebEndpointResponse<>(new Problem(String.valueOf(result.reason()), String.valueOf(result.error())),
				status);
	}

	/**
	 * Why a request was refused.
	 * @param reason the reason as a word (see {@link LeaveResult#reason()})
	 * @param error the reason, for people
	 */
	public record Problem(String reason, String error) implements OperationResponseBody {
	}

}
