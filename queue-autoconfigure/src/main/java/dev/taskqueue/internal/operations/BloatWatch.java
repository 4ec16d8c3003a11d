package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.BloatRepository.Holder;
import dev.taskqueue.internal.operations.BloatRepository.Reading;
import org.jspecify.annotations.Nullable;

/**
 * What an operator needs to see bloat coming on PostgreSQL (docs/operations.md#bloat): each task table's dead and
 * live rows and size, the oldest holder of the xmin horizon and how long it has held it, and which of them passed
 * their {@link Thresholds}. Read with one statement ({@link BloatRepository}) at most about once per refresh
 * interval, whoever asks: the gauges' thread refreshes it, and the health indicator, the endpoint and the dashboard
 * take the last report while it is fresh. Only on PostgreSQL: CockroachDB and YugabyteDB have no VACUUM.
 */
public final class BloatWatch {

	private final BloatRepository repository;

	private final Thresholds thresholds;

	private final long freshNanos;

	private volatile @Nullable Report latest;

	private volatile long latestAtNanos;

	/** The holder seen last, for a holder whose start the database does not say (a replication slot). */
	private @Nullable String holderKey;

	private @Nullable Instant holderFirstSeen;

	/**
	 * @param dataSource the database whose task tables are watched
	 * @param tables the task tables
	 * @param thresholds when a figure becomes a warning
	 * @param refreshInterval how often the figures are read; a report younger than twice this is fresh
	 */
	public BloatWatch(DataSource dataSource, TaskTables tables, Thresholds thresholds, Duration refreshInterval) {
		this.repository = new BloatRepository(dataSource, tables);
		this.thresholds = thresholds;
		this.freshNanos = refreshInterval.multipliedBy(2).toNanos();
	}

	/** Reads the figures now (the gauges' thread calls it once per refresh interval). */
	public synchronized Report refresh() {
		Report report = report(this.repository.read());
		this.latest = report;
		this.latestAtNanos = System.nanoTime();
		return report;
	}

	/** The last report, without reading anything: what the gauges show. {@code null} before the first read. */
	public @Nullable Report latest() {
		return this.latest;
	}

	/** The last report while it is fresh, else one read now (for the health indicator, endpoint and dashboard). */
	public Report current() {
		Report report = this.latest;
		if (report != null && System.nanoTime() - this.latestAtNanos < this.freshNanos) {
			return report;
		}
		synchronized (this) {
			report = this.latest;
			if (report != null && System.nanoTime() - this.latestAtNanos < this.freshNanos) {
				return report; // another caller read it while this one waited
			}
			return refresh();
		}
	}

	private Report report(Reading reading) {
		List<TableStats> tables = new ArrayList<>();
		List<String> warnings = new ArrayList<>();
		for (BloatRepository.Table table : reading.tables()) {
			boolean over = table.dead() >= this.thresholds.deadTuples()
					&& table.dead() >= this.thresholds.deadRatio() * table.live();
			tables.add(new TableStats(table.table(), table.live(), table.dead(), table.sizeBytes(), table.lastVacuum(),
					over));
			if (over) {
				warnings.add(String.format(Locale.ROOT,
						"%s has %,d dead rows for %,d live ones (taskqueue.bloat.dead-tuples %,d, dead-ratio %s): "
								+ "VACUUM has not removed them yet",
						table.table(), table.dead(), table.live(), this.thresholds.deadTuples(),
						this.thresholds.deadRatio()));
			}
		}
		Horizon horizon = horizon(reading);
		if (horizon != null && horizon.overThreshold()) {
			warnings.add("The xmin horizon has been held for " + horizon.age() + " (taskqueue.bloat.horizon-age "
					+ this.thresholds.horizonAge() + ") by " + horizon.describe()
					+ ": VACUUM cannot remove the rows deleted since, in any table of the database");
		}
		return new Report(reading.readAt(), List.copyOf(tables), horizon, List.copyOf(warnings));
	}

	/** The holder, with how long it has held the horizon: since its start, or since this instance first saw it. */
	private @Nullable Horizon horizon(Reading reading) {
		Holder holder = reading.holder();
		if (holder == null) {
			this.holderKey = null;
			return null;
		}
		Instant since = holder.since();
		if (since == null) {
			String key = holder.kind() + '/' + holder.name() + '/' + holder.pid() + '/' + holder.xmin();
			if (!key.equals(this.holderKey) || this.holderFirstSeen == null) {
				this.holderKey = key;
				this.holderFirstSeen = reading.readAt();
			}
			since = this.holderFirstSeen;
		}
		Duration age = Duration.between(since, reading.readAt());
		if (age.isNegative()) {
			age = Duration.ZERO;
		}
		return new Horizon(holder.kind(), age, holder.xidAge(), holder.pid(), holder.applicationName(),
				holder.clientAddress(), holder.state(), holder.since(), holder.name(),
				age.compareTo(this.thresholds.horizonAge()) >= 0);
	}

	/**
	 * When a figure becomes a warning.
	 *
	 * @param deadTuples a table's dead rows from which it warns, together with {@code deadRatio}
	 * @param deadRatio the least ratio of dead to live rows with which it warns
	 * @param horizonAge how long a transaction or slot may hold the xmin horizon before it warns
	 */
	public record Thresholds(long deadTuples, double deadRatio, Duration horizonAge) {
	}

	/**
	 * What one read found, with the warnings it gives.
	 *
	 * @param readAt when, on the database clock
	 * @param tables the task tables
	 * @param horizon the oldest holder of the xmin horizon, {@code null} when nothing holds it
	 * @param warnings one sentence per figure past its threshold, empty when none is
	 */
	public record Report(Instant readAt, List<TableStats> tables, @Nullable Horizon horizon, List<String> warnings) {

		/** The tables past their threshold. */
		public List<TableStats> tablesOverThreshold() {
			return this.tables.stream().filter(TableStats::overThreshold).toList();
		}

	}

	/**
	 * One task table.
	 *
	 * @param table its name
	 * @param liveTuples its live rows
	 * @param deadTuples its dead rows, not yet removed by VACUUM
	 * @param sizeBytes its size on disk, indexes and TOAST included
	 * @param lastVacuum when VACUUM last finished on it, {@code null} if never
	 * @param overThreshold whether its dead rows passed the thresholds
	 */
	public record TableStats(String table, long liveTuples, long deadTuples, long sizeBytes,
			@Nullable Instant lastVacuum, boolean overThreshold) {
	}

	/**
	 * The oldest holder of the xmin horizon. Never its query text, which may hold secrets in its literals: its pid
	 * finds it in {@code pg_stat_activity} for whoever may read it.
	 *
	 * @param holder {@code session}, {@code prepared transaction} or {@code replication slot}
	 * @param age how long it has held the horizon: since its transaction started (or was prepared); for a slot,
	 * since this instance first saw it hold this xmin
	 * @param xidAge how many transaction ids old the xmin it holds is
	 * @param pid the session's process id, or an active slot's walsender
	 * @param applicationName the session's {@code application_name}
	 * @param clientAddress the session's client address ({@code null} for a Unix socket)
	 * @param state the session's state, such as {@code idle in transaction}
	 * @param transactionStart when its transaction started or was prepared, {@code null} for a slot
	 * @param name the session's backend type, the prepared transaction's gid or the slot's name
	 * @param overThreshold whether {@code age} passed {@code taskqueue.bloat.horizon-age}
	 */
	public record Horizon(String holder, Duration age, long xidAge, @Nullable Integer pid,
			@Nullable String applicationName, @Nullable String clientAddress, @Nullable String state,
			@Nullable Instant transactionStart, @Nullable String name, boolean overThreshold) {

		/** The holder in a few words: {@code session pid 4242 (application 'psql', client 10.0.0.5, idle in transaction)}. */
		public String describe() {
			StringBuilder text = new StringBuilder(this.holder);
			if (this.pid != null) {
				text.append(" pid ").append(this.pid);
			}
			if (!this.holder.equals("session") && this.name != null) {
				text.append(" '").append(this.name).append('\'');
			}
			List<String> parts = new ArrayList<>();
			if (this.applicationName != null && !this.applicationName.isEmpty()) {
				parts.add("application '" + this.applicationName + "'");
			}
			if (this.clientAddress != null) {
				parts.add("client " + this.clientAddress);
			}
			if (this.state != null) {
				parts.add(this.state);
			}
			if (this.transactionStart != null) {
				parts.add("since " + this.transactionStart);
			}
			return parts.isEmpty() ? text.toString() : text + " (" + String.join(", ", parts) + ")";
		}

	}

}
