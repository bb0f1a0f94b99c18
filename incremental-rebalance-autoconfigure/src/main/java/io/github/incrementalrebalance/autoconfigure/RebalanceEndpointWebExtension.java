package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.autoconfigure.RebalanceEndpoint.Action;
import io.github.incrementalrebalance.autoconfigure.RebalanceEndpoint.LeaveResult;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;

/**
 * The {@link RebalanceEndpoint}'s leave over HTTP: 202 when a leave starts, 200 for a repeat, 400 with the reason for
 * a bad field (in the body, whatever Boot's error settings), 409 when Kafka Streams does not run, the instance id is
 * used twice or unknown, or no other member would stay (unless {@code "force": true}), 503 when the control topic
 * cannot be written, or with the reason {@code unknown} when whether it was written is unknown (it may still take
 * effect); its cancel answers 200 when the member stays, 202 when the cancel is written but another member has not
 * answered within the request's {@code wait} (10 s unless given), 409 when nothing was leaving or the member had left
 * (or was handing over) when the cancel came ({@code left-first}, with how it left), 503 when the cancel cannot be
 * written or its outcome is unknown.
 * Both take an {@code instanceId} to act on another member of the group, and an {@code applicationId} to act in one
 * of the Kafka Streams applications this instance runs (all of them when absent).
 */
@EndpointWebExtension(endpoint = RebalanceEndpoint.class)
public class RebalanceEndpointWebExtension {

	private static final Resource PAGE = new ClassPathResource("META-INF/incremental-rebalance/page.html");

	private final RebalanceEndpoint endpoint;

	public RebalanceEndpointWebExtension(RebalanceEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * The live page of the group, {@code <actuator>/rebalance/page/index.html}: static HTML, CSS and JavaScript that
	 * read this endpoint (and write it, where its access allows) every two seconds. Served by the endpoint, so it is
	 * there exactly where the endpoint is exposed over HTTP, behind the same security.
	 * @param page {@code page}
	 * @param file {@code index.html}
	 * @return the page, or 404 for any other path
	 */
	@ReadOperation(produces = "text/html;charset=UTF-8")
	public WebEndpointResponse<Resource> page(@Selector String page, @Selector String file) {
		if (!"page".equals(page) || !"index.html".equals(file)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(PAGE, WebEndpointResponse.STATUS_OK);
	}

	@WriteOperation
	public WebEndpointResponse<Object> leave(@Selector Action action, @Nullable String timeout, @Nullable String wait,
			@Nullable Boolean force, @Nullable String instanceId, @Nullable String applicationId) {
		return response(this.endpoint.leave(action, timeout, wait, force, instanceId, applicationId));
	}

	@DeleteOperation
	public WebEndpointResponse<Object> cancel(@Selector Action action, @Nullable String wait,
			@Nullable String instanceId, @Nullable String applicationId) {
		return response(this.endpoint.cancel(action, wait, instanceId, applicationId));
	}

	private static WebEndpointResponse<Object> response(LeaveResult result) {
		return switch (result.outcome()) {
			case STARTED -> new WebEndpointResponse<>(result.members(), 202);
			// the members' state, and why the answer is not in yet
			case CANCEL_UNANSWERED -> new WebEndpointResponse<>(result, 202);
			case ALREADY_LEAVING, CANCELLED -> new WebEndpointResponse<>(result.members(),
					WebEndpointResponse.STATUS_OK);
			case INVALID -> problem(result, WebEndpointResponse.STATUS_BAD_REQUEST);
			case REFUSED, NOTHING_TO_CANCEL, LEFT_FIRST -> problem(result, 409);
			case UNAVAILABLE, UNKNOWN -> problem(result, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
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
