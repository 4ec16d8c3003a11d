package dev.taskqueue.internal.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import dev.taskqueue.QueueName;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.TaskQueueOperations.TaskFilter;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.internal.dashboard.DashboardConfiguration.PageSettings;
import dev.taskqueue.internal.support.Redaction;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.servlet.support.RequestContextUtils;

/**
 * The dashboard's pages (GET only, no page changes anything). Each reads what it shows with bounded statements: the
 * gauges' statistics, one keyset page of tasks, the last hour of per-minute counts.
 */
final class DashboardPages {

	static final int PAGE_SIZE = 50;

	static final String FLASH = "taskqueue.dashboard.flash";

	/** The longest text the search takes: a key is an index entry, which holds a few kilobytes at most. */
	static final int SEARCH_TEXT = 1000;

	private static final MediaType HTML = MediaType.parseMediaType("text/html;charset=UTF-8");

	private final TaskQueueOperations operations;

	private final DashboardQueries queries;

	private final QueueMinuteRepository minutes;

	private final PageSettings settings;

	private final OverviewPage overview;

	private final QueuePage queuePage;

	private final TaskRedactor redactor;

	private final AuditEntries audit;

	private final DashboardAccess access;

	private final ResultStarts results;

	/**
	 * @param redactor what the pages show of payloads and errors: every payload and error shown goes through it
	 * @param audit the audit log, which a page lists
	 * @param access who may see the pages and who may act: a user who may only view gets no buttons
	 */
	DashboardPages(TaskQueueOperations operations, DashboardQueries queries, QueueMinuteRepository minutes,
			PageSettings settings, List<OverviewSection> sections, TaskRedactor redactor,
			AuditEntries audit, DashboardAccess access, ResultStarts results) {
		this.redactor = redactor;
		this.audit = audit;
		this.access = access;
		this.results = results;
		this.operations = operations;
		this.queries = queries;
		this.minutes = minutes;
		this.settings = settings;
		this.overview = new OverviewPage(settings.countLimit(), settings.refreshInterval(), sections);
		this.queuePage = new QueuePage(settings.countLimit(), settings.refreshInterval());
	}

	ServerResponse overview(ServerRequest request) {
		Trends trends = Trends.lastHour(this.minutes.recent(Trends.HOUR.minutes()));
		return html(HttpStatus.OK, this.overview.render(context(request), this.operations.queueStats(),
				this.operations.sessions(), trends));
	}

	ServerResponse queue(ServerRequest request) {
		String queue = QueueName.requireValid(request.pathVariable("queue"), "queue");
		QueuePage.View view = QueuePage.View.of(param(request, "view"));
		Keyset after = Keyset.parse(param(request, "after"));
		TaskFilter filter = waitingFilter(request);
		QueueStats stats = stats(queue);
		List<Trends.Series> trends = trends(queue);
		if (!filter.equals(TaskFilter.queue(queue))) {
			// Filtered: a page of the waiting tasks that match, in id order, as a bulk action takes them.
			List<TaskView> matching = this.queries.waitingMatching(queue, filter.errorContains(), filter.from(),
					filter.before(), (after != null) ? after.id() : null, PAGE_SIZE + 1);
			String next = null;
			if (matching.size() > PAGE_SIZE) {
				matching = matching.subList(0, PAGE_SIZE);
				next = new Keyset(0, 0, matching.get(PAGE_SIZE - 1).id()).toString();
			}
			QueuePage.Bulk bulk = new QueuePage.Bulk(filter, countWaiting(filter, false), countWaiting(filter, true));
			return html(HttpStatus.OK, this.queuePage.render(context(request), queue, stats, trends, view, bulk,
					matching.stream().map(this::redact).toList(), next));
		}
		QueuePage.Bulk bulk = new QueuePage.Bulk(filter, stats.ready() + stats.scheduled() + stats.waitingForKey(),
				stats.running());
		List<TaskView> found = switch (view) {
			case READY -> this.queries.ready(queue, after, PAGE_SIZE + 1);
			case SCHEDULED -> this.queries.scheduled(queue, after, PAGE_SIZE + 1);
			case RUNNING -> this.queries.running(queue, after, PAGE_SIZE + 1);
			// The held view's cursor is the last task's ordering key (in "key") and sequence number (in "after").
			case HELD -> this.queries.held(queue, (after != null) ? request.param("key").orElse("") : null,
					(after != null) ? after.micros() : 0, PAGE_SIZE + 1);
		};
		// One more row than shown tells whether there is a next page, without counting.
		String next = null;
		if (found.size() > PAGE_SIZE) {
			found = found.subList(0, PAGE_SIZE);
			TaskView last = found.get(PAGE_SIZE - 1);
			next = switch (view) {
				case RUNNING -> new Keyset(0,
						TaskView.micros((last.claimedAt() != null) ? last.claimedAt() : last.runAt()), last.id())
					.toString();
				case HELD -> new Keyset(0, (last.orderingSeq() != null) ? last.orderingSeq() : 0, last.id()) + "&key="
						+ URLEncoder.encode(String.valueOf(last.orderingKey()), StandardCharsets.UTF_8);
				default -> new Keyset(last.priority(), TaskView.micros(last.runAt()), last.id()).toString();
			};
		}
		return html(HttpStatus.OK, this.queuePage.render(context(request), queue, stats, trends, view, bulk,
				found.stream().map(this::redact).toList(), next));
	}

	private List<Trends.Series> trends(String queue) {
		List<QueueMinuteRepository.MinuteCount> minutes = this.minutes.recent(queue, Trends.DAY.minutes());
		return List.of(Trends.of(Trends.HOUR, minutes), Trends.of(Trends.DAY, minutes));
	}

	/**
	 * How many waiting tasks match {@code filter}, or how many running ones, which a bulk action leaves alone: up to
	 * the count limit.
	 */
	long countWaiting(TaskFilter filter, boolean running) {
		return this.queries.countWaiting(String.valueOf(filter.queue()), filter.errorContains(), filter.from(),
				filter.before(), running, this.settings.countLimit());
	}

	ServerResponse deadLetters(ServerRequest request) {
		TaskFilter filter = filter(request);
		List<DeadTask> found = this.queries.deadTasks(filter.queue(), filter.errorContains(), filter.from(),
				filter.before(), Keyset.parse(param(request, "after")), PAGE_SIZE + 1);
		String next = null;
		if (found.size() > PAGE_SIZE) {
			found = found.subList(0, PAGE_SIZE);
			DeadTask last = found.get(PAGE_SIZE - 1);
			next = new Keyset(0, TaskView.micros(last.failedAt()), last.id()).toString();
		}
		return html(HttpStatus.OK, DeadLettersPage.render(context(request), filter,
				found.stream().map((dead) -> Redaction.apply(this.redactor, dead)).toList(), next));
	}

	/** The audit log, newest first, one page at a time from a cursor (the last entry's time and id). */
	ServerResponse audit(ServerRequest request) {
		Keyset after = Keyset.parse(param(request, "after"));
		List<AuditEntries.Entry> found = this.audit.page(
				(after != null) ? Instant.EPOCH.plus(after.micros(), ChronoUnit.MICROS) : null,
				(after != null) ? after.id() : null, PAGE_SIZE + 1);
		String next = null;
		if (found.size() > PAGE_SIZE) {
			found = found.subList(0, PAGE_SIZE);
			AuditEntries.Entry last = found.get(PAGE_SIZE - 1);
			next = new Keyset(0, TaskView.micros(last.actedAt()), last.id()).toString();
		}
		return html(HttpStatus.OK, AuditPage.render(context(request), found, next));
	}

	/** The tasks whose id, unique key, ordering key or batch id is {@code q}: see DashboardQueries.search. */
	ServerResponse search(ServerRequest request) {
		String text = param(request, "q");
		if (text != null && text.length() > SEARCH_TEXT) {
			throw new IllegalArgumentException(
					"q must be at most " + SEARCH_TEXT + " characters but has " + text.length());
		}
		int limit = this.settings.searchLimit();
		List<DashboardQueries.Found> found = (text != null) ? this.queries.search(text, limit + 1) : List.of();
		boolean more = found.size() > limit;
		return html(HttpStatus.OK,
				SearchPage.render(context(request), text, more ? found.subList(0, limit) : found, more, limit));
	}

	ServerResponse task(ServerRequest request) {
		UUID id = id(request);
		PageContext context = context(request);
		Optional<TaskView> waiting = this.queries.find(id);
		if (waiting.isPresent()) {
			TaskProgress progress = waiting.get().running() ? this.operations.progress(id).orElse(null) : null;
			return html(HttpStatus.OK, TaskPage.waiting(context, redact(waiting.get()), progress));
		}
		Optional<DeadTaskView> dead = this.queries.findDead(id);
		if (dead.isPresent()) {
			return html(HttpStatus.OK, TaskPage.dead(context, new DeadTaskView(
					Redaction.apply(this.redactor, dead.get().task()), dead.get().payloadBytes(), dead.get().errorBytes())));
		}
		return this.results.readStart(id, DashboardQueries.PAGE_PREVIEW)
			.map((result) -> html(HttpStatus.OK, TaskPage.completed(context, id, result.queue(),
					this.redactor.payload(result.queue(), result.json()), result.bytes())))
			.orElseGet(() -> html(HttpStatus.NOT_FOUND, MessagePage.error(context, "No such task",
					"No task " + id + " waits, runs or is dead, and no result of it is kept: it completed, was "
							+ "cancelled or deleted.")));
	}

	private TaskView redact(TaskView task) {
		if (this.redactor == TaskRedactor.NONE) {
			return task;
		}
		String error = task.lastError();
		return task.withText(this.redactor.payload(task.queue(), task.payload()),
				(error != null) ? this.redactor.error(task.queue(), error) : null,
				Redaction.attempts(this.redactor, task.queue(), task.attempts()));
	}

	/** What the statistics say of one queue; zeros for a queue that holds nothing. */
	QueueStats stats(String queue) {
		return this.operations.queueStats(queue);
	}

	PageContext context(ServerRequest request) {
		HttpServletRequest servlet = request.servletRequest();
		Map<String, ?> flash = RequestContextUtils.getInputFlashMap(servlet);
		Object message = (flash != null) ? flash.get(FLASH) : null;
		// A user who may only view gets no buttons, as on a read-only dashboard; the badge says which it is.
		DashboardAccess.Level level = this.access.level(servlet);
		boolean viewOnly = !this.settings.readOnly() && level == DashboardAccess.Level.VIEW;
		return PageContext.of(servlet, this.settings.path(),
				this.settings.readOnly() || level != DashboardAccess.Level.OPERATE, viewOnly,
				(message != null) ? message.toString() : null, this.queries::now);
	}

	static ServerResponse html(HttpStatus status, String page) {
		return ServerResponse.status(status)
			.contentType(HTML)
			.header("Cache-Control", "no-store")
			.header("X-Content-Type-Options", "nosniff")
			// Defence in depth behind the escaping: no script runs, nothing is loaded from elsewhere.
			.header("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; "
					+ "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
			.body(page);
	}

	/**
	 * The dead letters' filter in the request's parameters ({@code queue}, {@code error}, {@code from},
	 * {@code before}), the same for the page and for a bulk action's form; the times are UTC, as the page shows them.
	 */
	static TaskFilter filter(ServerRequest request) {
		String queue = param(request, "queue");
		return new TaskFilter((queue != null) ? QueueName.requireValid(queue, "queue") : queue,
				param(request, "error"), time(request, "from"), time(request, "before"));
	}

	/**
	 * The filter of a queue's waiting tasks: its queue (the path's), and the {@code error}, {@code from} and
	 * {@code before} parameters as {@link #filter} reads them, the times being when the tasks last failed.
	 */
	static TaskFilter waitingFilter(ServerRequest request) {
		String queue = QueueName.requireValid(request.pathVariable("queue"), "queue");
		return new TaskFilter(queue, param(request, "error"), time(request, "from"), time(request, "before"));
	}

	private static @Nullable Instant time(ServerRequest request, String name) {
		String value = param(request, name);
		if (value == null) {
			return null;
		}
		try {
			return value.endsWith("Z") ? Instant.parse(value) : LocalDateTime.parse(value).toInstant(ZoneOffset.UTC);
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException(
					name + " must be a UTC time such as 2026-11-27T09:30 but was '" + value + "'");
		}
	}

	static UUID id(ServerRequest request) {
		String id = request.pathVariable("id");
		try {
			return UUID.fromString(id);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("task id must be a UUID but was '" + id + "'");
		}
	}

	static @Nullable String param(ServerRequest request, String name) {
		return request.param(name).map(String::strip).filter((value) -> !value.isEmpty()).orElse(null);
	}

}
