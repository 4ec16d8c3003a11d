package dev.taskqueue.internal.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.operations.BloatWatch.Horizon;
import dev.taskqueue.internal.operations.BloatWatch.Report;
import dev.taskqueue.internal.operations.BloatWatch.TableStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of what makes the task tables bloat (docs/operations.md#bloat): per table its dead and live rows and size,
 * and how long the oldest holder of the xmin horizon has held it. {@link #refresh()} runs on the queue gauges'
 * thread, once per refresh interval; the gauges show the last report and never read the database.
 */
final class BloatGauges {

	private final BloatWatch watch;

	private final MeterRegistry registry;

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	BloatGauges(BloatWatch watch, MeterRegistry registry) {
		this.watch = watch;
		this.registry = registry;
		TimeGauge.builder("taskqueue.horizon.age", this, TimeUnit.SECONDS,
				(gauges) -> seconds(gauges.watch.latest()))
			.description("How long the oldest transaction, prepared transaction or replication slot has held the "
					+ "database's xmin horizon; 0 when none holds it")
			.register(registry);
		Gauge.builder("taskqueue.horizon.xid.age", this, (gauges) -> {
			Report report = gauges.watch.latest();
			Horizon horizon = (report != null) ? report.horizon() : null;
			return (horizon != null) ? horizon.xidAge() : 0;
		}).description("How many transaction ids old the xmin held by the horizon's oldest holder is").register(registry);
	}

	/** Reads the figures and registers the gauges of a table seen for the first time. */
	void refresh() {
		for (TableStats table : this.watch.refresh().tables()) {
			if (this.registered.add(table.table())) {
				register(table.table());
			}
		}
	}

	private void register(String table) {
		gauge("taskqueue.table.dead.tuples", table, null, "Dead rows of the table, not yet removed by VACUUM",
				TableStats::deadTuples);
		gauge("taskqueue.table.live.tuples", table, null, "Live rows of the table, as PostgreSQL's statistics count them",
				TableStats::liveTuples);
		gauge("taskqueue.table.size", table, "bytes", "Size of the table on disk, with its indexes and TOAST",
				TableStats::sizeBytes);
	}

	private void gauge(String name, String table, @Nullable String unit, String description,
			ToDoubleFunction<TableStats> value) {
		Gauge.builder(name, this, (gauges) -> {
			Report report = gauges.watch.latest();
			if (report == null) {
				return 0;
			}
			return report.tables().stream().filter((t) -> t.table().equals(table)).mapToDouble(value).findFirst()
				.orElse(0);
		}).tag("table", table).baseUnit(unit).description(description).register(this.registry);
	}

	private static double seconds(@Nullable Report report) {
		Horizon horizon = (report != null) ? report.horizon() : null;
		return (horizon != null) ? horizon.age().toNanos() / 1e9 : 0;
	}

}
