package dev.taskqueue.internal.dashboard;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.QueueName;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.TaskFilter;
import dev.taskqueue.TaskQueueOperations.QueueStats;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.FlashMap;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.servlet.support.RequestContextUtils;

/**
 * The dashboard's actions: POST only, refused when the dashboard is read-only. An action that cannot be undone
 * first answers with a page that asks to confirm it, and runs only when posted again with the token that page
 * minted for it ({@code confirm}); a wrong token is refused. ActionGuard checks every POST before these.
 * Each ends with a redirect (POST-redirect-GET) to a page that says what it did.
 */
final class DashboardActions {

	private final TaskQueueOperations operations;

	private final DashboardQueries queries;

	private final DashboardPages pages;

	private final int countLimit;

	DashboardActions(TaskQueueOperations operations, DashboardQueries queries, DashboardPages pages,
			int countLimit) {
		this.operations = operations;
		this.queries = queries;
		this.pages = pages;
		this.countLimit = countLimit;
	}

	ServerResponse pause(ServerRequest request) {
		String queue = queue(request);
		this.operations.pause(queue);
		return done(request, back(request, queue),
				"Paused queue " + queue + ": no instance starts its tasks until it is resumed; running ones finish.");
	}

	ServerResponse resume(ServerRequest request) {
		String queue = queue(request);
		this.operations.resume(queue);
		return done(request, back(request, queue), "Resumed queue " + queue + ".");
	}

	ServerResponse cancel(ServerRequest request) {
		UUID id = DashboardPages.id(request);
		Optional<TaskView> task = this.queries.find(id);
		String back = task.map((t) -> "/queues/" + t.queue()).orElse("");
		if (!confirmed(request, "/tasks/" + id + "/cancel")) {
			return confirm(request, "Cancel task " + id + "? It is deleted and will not run; if it is running, its "
					+ "handler is interrupted and its work rolled back.", "/tasks/" + id + "/cancel", "Cancel the task",
					"/tasks/" + id);
		}
		String requestedBy = request.principal().map(Principal::getName).orElse("dashboard");
		return done(request, back, this.operations.cancel(id, requestedBy) ? "Cancelled task " + id + "."
				: "Task " + id + " was not cancelled: it no longer waits or runs.");
	}

	ServerResponse retry(ServerRequest request) {
		UUID id = DashboardPages.id(request);
		// Its queue only: the payload may be far larger than the heap.
		Optional<String> queue = this.queries.deadQueue(id);
		if (!confirmed(request, "/tasks/" + id + "/retry")) {
			return confirm(request, "Retry dead task " + id + "? It goes back to queue " + queue.orElse("?")
					+ ", ready at once, and its handler runs again.", "/tasks/" + id + "/retry", "Retry",
					"/tasks/" + id);
		}
		String back = "/dead" + queue.map((q) -> "?queue=" + q).orElse("");
		return done(request, back, this.operations.retryDead(id)
				? "Retried task " + id + ": it is back in queue " + queue.orElse("?") + "."
				: "No dead task " + id + " to retry: it was retried or deleted already.");
	}

	ServerResponse delete(ServerRequest request) {
		UUID id = DashboardPages.id(request);
		Optional<String> queue = this.queries.deadQueue(id);
		if (!confirmed(request, "/tasks/" + id + "/delete")) {
			return confirm(request, "Delete dead task " + id + " for good?", "/tasks/" + id + "/delete", "Delete",
					"/tasks/" + id);
		}
		String back = "/dead" + queue.map((q) -> "?queue=" + q).orElse("");
		return done(request, back, this.operations.deleteDead(id) ? "Deleted dead task " + id + "."
				: "No dead task " + id + " to delete: it was retried or deleted already.");
	}

	ServerResponse retryAll(ServerRequest request) {
		String queue = queue(request);
		if (!confirmed(request, "/queues/" + queue + "/retry-dead")) {
			return confirm(request, "Retry all " + dead(queue) + " dead tasks of queue " + queue
					+ "? They go back to the queue, ready at once.", "/queues/" + queue + "/retry-dead", "Retry all",
					"/dead?queue=" + queue);
		}
		int retried = this.operations.retryAllDead(queue);
		return done(request, "/dead?queue=" + queue,
				"Retried " + Formats.tasks(retried, "dead") + " of queue " + queue
						+ ((retried > 0) ? ": they are back in the queue." : "."));
	}

	ServerResponse deleteAll(ServerRequest request) {
		String queue = queue(request);
		if (!confirmed(request, "/queues/" + queue + "/delete-dead")) {
			return confirm(request, "Delete all " + dead(queue) + " dead tasks of queue " + queue + " for good?",
					"/queues/" + queue + "/delete-dead", "Delete all", "/dead?queue=" + queue);
		}
		int deleted = this.operations.deleteAllDead(queue);
		return done(request, "/dead?queue=" + queue,
				"Deleted " + Formats.tasks(deleted, "dead") + " of queue " + queue + ".");
	}

	/**
	 * Retries every dead letter the filter of the dead-letter page matches (posted as its fields), after a
	 * confirmation that says how many; in chunks, each its own transaction (TaskQueueOperations.retryDead).
	 */
	ServerResponse retryMatching(ServerRequest request) {
		TaskFilter filter = bulkFilter(request);
		String[] fields = DeadLettersPage.fields(filter);
		if (!confirmed(request, "/dead/retry", fields)) {
			return confirm(request, "Retry " + matching(filter) + "? They go back to their queues, ready at once, "
					+ "and their handlers run again.", "/dead/retry", "Retry them all", back(filter), fields);
		}
		int retried = this.operations.retryDead(filter);
		return done(request, back(filter),
				"Retried " + Formats.tasks(retried, "dead") + " (" + filter + ")"
						+ ((retried > 0) ? ": they are back in their queues." : "."));
	}

	/** Deletes every dead letter the filter matches, as {@link #retryMatching} retries them. */
	ServerResponse deleteMatching(ServerRequest request) {
		TaskFilter filter = bulkFilter(request);
		String[] fields = DeadLettersPage.fields(filter);
		if (!confirmed(request, "/dead/delete", fields)) {
			return confirm(request, "Delete " + matching(filter) + " for good?", "/dead/delete", "Delete them all",
					back(filter), fields);
		}
		int deleted = this.operations.deleteDead(filter);
		return done(request, back(filter), "Deleted " + Formats.tasks(deleted, "dead") + " (" + filter + ").");
	}

	/** The filter of a bulk action: at least one condition, as the page offers it, never every dead letter. */
	private static TaskFilter bulkFilter(ServerRequest request) {
		TaskFilter filter = DashboardPages.filter(request);
		if (DeadLettersPage.fields(filter).length == 0) {
			throw new IllegalArgumentException("A bulk action needs a filter: a queue, an error text or failure times");
		}
		return filter;
	}

	/** "the 1,234 dead tasks (queue emails, error contains "timeout")", counted up to the count limit. */
	private String matching(TaskFilter filter) {
		long count = this.queries.countDead(filter.queue(), filter.errorContains(), filter.from(),
				filter.before(), this.countLimit);
		return Formats.matching(count, this.countLimit, "dead") + " (" + filter + ")";
	}

	/**
	 * Makes every waiting task of a queue that the filter of its page matches (posted as its fields) due now, after
	 * a confirmation that says how many, and how many running ones it leaves alone; in chunks, each its own
	 * transaction (TaskQueueOperations.retryWaiting).
	 */
	ServerResponse retryWaiting(ServerRequest request) {
		TaskFilter filter = DashboardPages.waitingFilter(request);
		String action = "/queues/" + filter.queue() + "/retry-waiting";
		String[] fields = FilterForm.fields(filter, false);
		if (!confirmed(request, action, fields)) {
			return confirm(request, "Make " + waiting(filter) + " due now? Each runs at once, with the attempts it "
					+ "has left." + running(filter), action, "Retry them all", backToQueue(filter), fields);
		}
		int retried = this.operations.retryWaiting(filter);
		return done(request, backToQueue(filter),
				"Made " + Formats.tasks(retried, "waiting") + " due now (" + filter + ")." + running(filter));
	}

	/** Deletes every waiting task the filter matches, as {@link #retryWaiting} makes them due. */
	ServerResponse deleteWaiting(ServerRequest request) {
		TaskFilter filter = DashboardPages.waitingFilter(request);
		String action = "/queues/" + filter.queue() + "/delete-waiting";
		String[] fields = FilterForm.fields(filter, false);
		if (!confirmed(request, action, fields)) {
			return confirm(request, "Delete " + waiting(filter) + " for good? They will not run." + running(filter),
					action, "Delete them all", backToQueue(filter), fields);
		}
		int deleted = this.operations.deleteWaiting(filter);
		return done(request, backToQueue(filter),
				"Deleted " + Formats.tasks(deleted, "waiting") + " (" + filter + ")." + running(filter));
	}

	/** "the 2,500 waiting tasks that match (queue emails, error contains "timeout")", up to the count limit. */
	private String waiting(TaskFilter filter) {
		return Formats.matching(this.pages.countWaiting(filter, false), this.countLimit, "waiting") + " (" + filter
				+ ")";
	}

	/** What a bulk action on waiting tasks leaves alone: the running tasks that match, if any. */
	private String running(TaskFilter filter) {
		long running = this.pages.countWaiting(filter, true);
		if (running == 0) {
			return "";
		}
		return (running == 1) ? " The running task that matches is left alone."
				: " The " + Formats.count(running, this.countLimit) + " running tasks that match are left alone.";
	}

	/** The queue's page with the filter. */
	private static String backToQueue(TaskFilter filter) {
		return FilterForm.path("/queues/" + filter.queue(), FilterForm.fields(filter, false));
	}

	/** The dead-letter page with the filter. */
	private static String back(TaskFilter filter) {
		return FilterForm.path("/dead", DeadLettersPage.fields(filter));
	}

	/** Every action when the dashboard is read-only. */
	ServerResponse refuse(ServerRequest request) {
		return DashboardPages.html(HttpStatus.FORBIDDEN, MessagePage.error(this.pages.context(request), "Read-only",
				"The dashboard is read-only: set taskqueue.dashboard.read-only=false to allow actions."));
	}

	private String dead(String queue) {
		QueueStats stats = this.pages.stats(queue);
		return Formats.count(stats.dead(), this.countLimit);
	}

	ServerResponse confirm(ServerRequest request, String question, String action, String label, String back,
			String... hidden) {
		return DashboardPages.html(HttpStatus.OK, MessagePage.confirm(this.pages.context(request), question, action,
				label, back, ActionGuard.confirmToken(request.servletRequest(), action, hidden), hidden));
	}

	ServerResponse done(ServerRequest request, String path, String message) {
		String location = this.pages.context(request).url(path);
		FlashMap flash = RequestContextUtils.getOutputFlashMap(request.servletRequest());
		flash.put(DashboardPages.FLASH, message);
		return ServerResponse.status(HttpStatus.SEE_OTHER).location(URI.create(location)).build((req, res) -> {
			RequestContextUtils.saveOutputFlashMap(location, req, res);
			return null;
		});
	}

	/**
	 * Whether the action is confirmed: {@code false} when posted without {@code confirm} (ask first).
	 * @param action the action's path under the dashboard, as its confirmation page posts it
	 * @param hidden the hidden fields that confirmation page posts with it
	 * @throws Refused if {@code confirm} is not the token a confirmation page minted for this action: a request
	 * that would skip the page ({@code confirm=yes}) or confirm another action
	 */
	static boolean confirmed(ServerRequest request, String action, String... hidden) {
		String posted = DashboardPages.param(request, ActionGuard.CONFIRM_FIELD);
		if (posted == null) {
			return false;
		}
		if (!ActionGuard.confirms(request.servletRequest(), posted, action, hidden)) {
			throw new Refused("The confirmation is not one the dashboard's confirmation page gave for this action: "
					+ "confirm it from that page.");
		}
		return true;
	}

	/** An action refused with 403: it was not confirmed from its confirmation page. */
	static final class Refused extends RuntimeException {

		Refused(String message) {
			super(message);
		}

	}

	private static String queue(ServerRequest request) {
		return QueueName.requireValid(request.pathVariable("queue"), "queue");
	}

	/** Back to the queue's page when the action was posted from there, else to the overview. */
	private static String back(ServerRequest request, String queue) {
		return "queue".equals(DashboardPages.param(request, "from")) ? "/queues/" + queue : "";
	}

}
