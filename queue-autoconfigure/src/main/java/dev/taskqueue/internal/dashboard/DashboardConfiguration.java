package dev.taskqueue.internal.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.operations.ActingAs;
import dev.taskqueue.internal.schedule.ScheduleControl;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.Redaction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * This package's one entry point: the dashboard's configurations. {@link Pages} serves the pages as functional
 * routes under {@link PageSettings#path()} (no component scanning, no template engine, nothing but the pages
 * and one style sheet), imported by {@code TaskQueueDashboardAutoConfiguration}, which decides whether the dashboard
 * is served and gives it its {@link PageSettings}; {@link Throughput}, which records what the charts show, is
 * imported by {@code ThroughputAutoConfiguration} wherever a worker runs. Not a configuration itself, so that
 * importing one of them does not bring the other.
 */
public final class DashboardConfiguration {

	private DashboardConfiguration() {
	}

	/** The pages, the actions and their routes, in an instance that serves the dashboard. */
	@Configuration(proxyBeanMethods = false)
	@ImportRuntimeHints(Pages.StyleHints.class)
	public static class Pages {

		static final String STYLE = "dev/taskqueue/internal/dashboard/dashboard.css";

		private static final Log logger = LogFactory.getLog(DashboardConfiguration.class);

		/** A class of Spring Security's web support: with it the application can protect the path, without it nothing does. */
		private static final String SPRING_SECURITY = "org.springframework.security.web.SecurityFilterChain";

		/**
		 * The bean of Spring Security's filter chain ({@code @EnableWebSecurity}, which Spring Boot's security
		 * auto-configuration applies): requests reach the dashboard with their authentication.
		 */
		private static final String FILTER_CHAIN = "springSecurityFilterChain";

		@Bean
		RouterFunction<ServerResponse> taskQueueDashboardRoutes(TaskQueueOperations operations, DataSource dataSource,
				TaskTables tables, PageSettings settings, ObjectProvider<OverviewSection> sections,
				ResourceLoader resourceLoader, ObjectProvider<TaskRedactor> redactor, BeanFactory beans) {
			// With Spring Security's filter chain, users are told apart by their authorities (view, operate); without
			// it, nothing tells them apart.
			boolean secured = ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader())
					&& beans.containsBean(FILTER_CHAIN);
			// Once, where the routes are made: the pages show payloads and errors to whoever reaches them.
			if (!secured) {
				logger.warn("TaskQueue's dashboard is served at " + settings.path()
						+ " with no authentication: the application has no Spring Security filter chain, so anyone who "
						+ "reaches it sees its tasks' payloads and errors" + (settings.readOnly() ? "" : " and can act on them")
						+ ". Protect the path (docs/dashboard.md) or set taskqueue.dashboard.enabled=false.");
			}
			DashboardAccess access = secured
					? DashboardAccess.byAuthorities(settings.viewAuthority(), settings.operateAuthority())
					: DashboardAccess.open();
			DashboardQueries queries = queries(dataSource, tables);
			DashboardPages pages = new DashboardPages(operations, queries, new QueueMinuteRepository(dataSource, tables),
					settings, sections.orderedStream().toList(), Redaction.effective(
							redactor.getIfAvailable(() -> TaskRedactor.NONE), settings.hidePayloads()),
					new AuditEntries(dataSource, tables), access, new ResultStarts(dataSource, tables));
			DashboardActions actions = new DashboardActions(operations, queries, pages, settings.countLimit());
			return routes(settings, pages, actions, new ScheduleActions(operations, actions), access, style());
		}

		@Bean
		@Order(1)
		@ConditionalOnBean(ScheduleControl.class)
		SchedulesSection taskQueueDashboardSchedules(TaskQueueOperations operations, DataSource dataSource,
				TaskTables tables) {
			return new SchedulesSection(operations, queries(dataSource, tables));
		}

		@Bean
		@Order(2)
		BatchesSection taskQueueDashboardBatches(DataSource dataSource, TaskTables tables, PageSettings settings) {
			return new BatchesSection(queries(dataSource, tables), settings.countLimit());
		}

		/** Null (no section) where there is no {@link BloatWatch}: CockroachDB, YugabyteDB, or bloat turned off. */
		@Bean
		@Order(3)
		@Nullable BloatSection taskQueueDashboardBloat(ObjectProvider<BloatWatch> watch) {
			BloatWatch bloat = watch.getIfAvailable();
			return (bloat != null) ? new BloatSection(bloat) : null;
		}

		private static DashboardQueries queries(DataSource dataSource, TaskTables tables) {
			return new DashboardQueries(dataSource, tables,
					new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
		}

		static RouterFunction<ServerResponse> routes(PageSettings settings, DashboardPages pages,
				DashboardActions actions, ScheduleActions schedules, DashboardAccess access, String style) {
			String base = settings.path();
			// The style sheet holds nothing of the application: served to anyone, so that a refusal is styled too.
			RouterFunction<ServerResponse> styleSheet = RouterFunctions.route()
				.GET(base + "/dashboard.css", (request) -> ServerResponse.ok()
					.contentType(new MediaType("text", "css", StandardCharsets.UTF_8))
					.header("Cache-Control", "max-age=3600")
					.body(style))
				.build();
			RouterFunctions.Builder routes = RouterFunctions.route()
				.GET(base, pages::overview)
				.GET(base + "/", pages::overview)
				.GET(base + "/queues/{queue}", pages::queue)
				.GET(base + "/dead", pages::deadLetters)
				.GET(base + "/tasks/{id}", pages::task)
				.GET(base + "/search", pages::search)
				.GET(base + "/audit", pages::audit);
			// Every page and action first: may this user see the dashboard, or act on it? (DashboardAccess). An
			// action runs with its user named for the audit log.
			routes.filter((request, next) -> {
				String refusal = access.refusal(request);
				if (refusal != null) {
					return DashboardPages.html(HttpStatus.FORBIDDEN,
							MessagePage.error(pages.context(request), "Not allowed", refusal));
				}
				if (request.method() != HttpMethod.POST) {
					return next.handle(request);
				}
				try (ActingAs acting = DashboardAccess.acting(request.servletRequest())) {
					return next.handle(request);
				}
			});
			// Every action is a POST; when read-only each is refused with a page that says which property allows it.
			String[] queueActions = { "pause", "resume", "retry-dead", "delete-dead", "retry-waiting",
					"delete-waiting" };
			String[] taskActions = { "cancel", "retry", "delete" };
			String[] scheduleActions = { "pause", "resume", "trigger" };
			if (settings.readOnly()) {
				for (String action : scheduleActions) {
					routes.POST(base + "/schedules/" + action, actions::refuse);
				}
				for (String action : queueActions) {
					routes.POST(base + "/queues/{queue}/" + action, actions::refuse);
				}
				for (String action : taskActions) {
					routes.POST(base + "/tasks/{id}/" + action, actions::refuse);
				}
				routes.POST(base + "/dead/retry", actions::refuse).POST(base + "/dead/delete", actions::refuse);
			}
			else {
				routes.POST(base + "/queues/{queue}/pause", actions::pause)
					.POST(base + "/queues/{queue}/resume", actions::resume)
					.POST(base + "/queues/{queue}/retry-dead", actions::retryAll)
					.POST(base + "/queues/{queue}/delete-dead", actions::deleteAll)
					.POST(base + "/queues/{queue}/retry-waiting", actions::retryWaiting)
					.POST(base + "/queues/{queue}/delete-waiting", actions::deleteWaiting)
					.POST(base + "/dead/retry", actions::retryMatching)
					.POST(base + "/dead/delete", actions::deleteMatching)
					.POST(base + "/tasks/{id}/cancel", actions::cancel)
					.POST(base + "/tasks/{id}/retry", actions::retry)
					.POST(base + "/tasks/{id}/delete", actions::delete)
					.POST(base + "/schedules/pause", schedules::pause)
					.POST(base + "/schedules/resume", schedules::resume)
					.POST(base + "/schedules/trigger", schedules::trigger);
				// Every action, whatever the class path: same origin, and the dashboard's token (or Spring Security's).
				ActionGuard guard = new ActionGuard(pages);
				routes.filter((request, next) -> (request.method() == HttpMethod.POST) ? guard.filter(request, next)
						: next.handle(request));
			}
			return styleSheet.and(routes.onError(DashboardActions.Refused.class,
					(ex, request) -> DashboardPages.html(HttpStatus.FORBIDDEN,
							MessagePage.error(pages.context(request), "Refused", ex.getMessage() + " Nothing was changed.")))
				.onError(IllegalArgumentException.class,
					(ex, request) -> DashboardPages.html(HttpStatus.BAD_REQUEST,
							MessagePage.error(pages.context(request), "Bad request", ex.getMessage())))
				.build());
		}

		/** The style sheet is read from the class path, which a native image must be told about. */
		static class StyleHints implements RuntimeHintsRegistrar {

			@Override
			public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
				hints.resources().registerPattern(STYLE);
			}

		}

		private static String style() {
			try {
				return new ClassPathResource(STYLE).getContentAsString(StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("The dashboard's style sheet " + STYLE + " is missing from the jar", ex);
			}
		}

	}

	/**
	 * Records, in every instance that runs a worker, the completed and failed attempts per queue and minute that
	 * the dashboard's charts show, and once a minute each queue's ready tasks and oldest wait for its trends,
	 * whether or not this instance serves the dashboard.
	 */
	@Configuration(proxyBeanMethods = false)
	public static class Throughput {

		@Bean
		@DependsOnDatabaseInitialization
		ThroughputRecorder taskQueueThroughputRecorder(DataSource dataSource, TaskTables tables,
				ThroughputSettings settings, ObjectProvider<DatabaseOutage> outage,
				ObjectProvider<TaskQueueOperations> operations) {
			// Looked up when sampling: the operations depend on the listeners, of which the recorder is one.
			ThroughputRecorder recorder = new ThroughputRecorder(new QueueMinuteRepository(dataSource, tables),
					settings.interval(), () -> {
						TaskQueueOperations queues = operations.getIfAvailable();
						return (queues != null) ? queues.queueStats() : List.of();
					});
			recorder.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
			return recorder;
		}

	}

	/**
	 * What the pages take from the configuration, resolved once by the auto-configuration.
	 *
	 * @param path the dashboard's path, without the servlet context path
	 * @param readOnly whether actions are refused
	 * @param refreshInterval how often the overview reloads itself
	 * @param countLimit the count at which the statistics stop counting
	 * @param hidePayloads whether payloads are hidden, whatever the {@code TaskRedactor}
	 * @param searchLimit how many tasks a search shows at most
	 * @param viewAuthority the authority that lets a user see the pages, with Spring Security
	 * @param operateAuthority the authority that lets a user act (and see the pages), with Spring Security
	 */
	public record PageSettings(String path, boolean readOnly, Duration refreshInterval, int countLimit,
			boolean hidePayloads, int searchLimit, String viewAuthority, String operateAuthority) {
	}

	/**
	 * What the throughput recorder takes from the configuration.
	 *
	 * @param interval how often the counts of the last minutes are written
	 */
	public record ThroughputSettings(Duration interval) {
	}

}
