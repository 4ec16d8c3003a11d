package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The dashboard's settings, under {@code taskqueue.dashboard}: where the application serves it, and whether it may
 * change anything.
 */
public class DashboardProperties {

	/** What {@code path} may be: checked by TaskQueuePropertiesValidation. */
	static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

	/**
	 * Whether a servlet web application with Spring MVC serves the dashboard. Off by default: its pages show
	 * payloads, stack traces, host names and process ids, so an application opts in (and protects the path), as with
	 * Spring Boot's actuator endpoints.
	 */
	private boolean enabled = false;

	/**
	 * Path under which the dashboard is served, such as /taskqueue or /admin/queues.
	 */
	private String path = "/taskqueue";

	/**
	 * Whether the dashboard only shows the queues; set to false to let it pause and resume queues, cancel waiting and
	 * running tasks, and retry or delete dead letters.
	 */
	private boolean readOnly = true;

	/**
	 * How often the overview and the page of a queue reload themselves, to follow a queue as it drains; each page
	 * has a link that stops it reloading.
	 */
	private Duration refreshInterval = Duration.ofSeconds(5);

	/**
	 * How many tasks the search box shows at most (from 1 to 1000): the tasks whose id, unique key, ordering key or
	 * batch id is the text searched for.
	 */
	private int searchLimit = 100;

	/**
	 * Whether this instance adds the tasks it completed and failed, per queue and minute, and once a minute a
	 * sample of each queue's ready tasks, to the taskqueue_queue_minute table that the dashboard's charts and trends
	 * read; keep it on in every instance that runs handlers, with or without a dashboard.
	 */
	private boolean recordThroughput = true;

	/**
	 * Authority that lets a user see the dashboard's pages, where the application has Spring Security's web
	 * filter chain; the operate authority lets one see them too.
	 */
	private String viewAuthority = "TASKQUEUE_VIEW";

	/**
	 * Authority that lets a user act on the dashboard (pause, cancel, retry, delete, trigger), where the
	 * application has Spring Security's web filter chain and read-only is false; it lets one see the pages too.
	 */
	private String operateAuthority = "TASKQUEUE_OPERATE";

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

	public int getSearchLimit() {
		return this.searchLimit;
	}

	public void setSearchLimit(int searchLimit) {
		this.searchLimit = searchLimit;
	}

	public boolean isRecordThroughput() {
		return this.recordThroughput;
	}

	public void setRecordThroughput(boolean recordThroughput) {
		this.recordThroughput = recordThroughput;
	}

	public String getViewAuthority() {
		return this.viewAuthority;
	}

	public void setViewAuthority(String viewAuthority) {
		this.viewAuthority = viewAuthority;
	}

	public String getOperateAuthority() {
		return this.operateAuthority;
	}

	public void setOperateAuthority(String operateAuthority) {
		this.operateAuthority = operateAuthority;
	}

}
