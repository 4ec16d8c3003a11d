package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One result of one run: its metrics, the first of which is compared with the baseline measured in the same run.
 *
 * @param workload {@code W1} to {@code W5}
 * @param label what was measured, the same in every run, e.g. {@code drain mode=transactional tasks=100000}
 * @param metrics the figures, the headline first
 * @param baseline the name of the baseline, or {@code null}
 * @param baselineValue the baseline's headline figure in the same run
 */
record Result(String workload, String label, List<Metric> metrics, String baseline, double baselineValue) {

	static Result of(String workload, String label, Metric... metrics) {
		return new Result(workload, label, List.of(metrics), null, Double.NaN);
	}

	/** This result compared with {@code baseline}'s headline figure. */
	Result comparedWith(String baseline, Metric baselineMetric) {
		return new Result(this.workload, this.label, this.metrics, baseline, baselineMetric.value());
	}

	/** This result with one more metric. */
	Result and(Metric metric) {
		List<Metric> metrics = new ArrayList<>(this.metrics);
		metrics.add(metric);
		return new Result(this.workload, this.label, List.copyOf(metrics), this.baseline, this.baselineValue);
	}

	Metric headline() {
		return this.metrics.get(0);
	}

	boolean hasBaseline() {
		return this.baseline != null;
	}

	/** The headline figure divided by the baseline's. */
	double ratio() {
		return headline().value() / this.baselineValue;
	}

	/** The line printed when it is measured. */
	String line(int run) {
		String metrics = this.metrics.stream().map(Metric::toString).collect(Collectors.joining(" "));
		String comparison = hasBaseline() ? String.format(Locale.ROOT, " baseline=%s(%s) ratio=%.2f", this.baseline,
				headline().withValue(this.baselineValue).formattedValue(), ratio()) : "";
		return "RESULT " + this.workload + " " + this.label + " " + metrics + comparison + " run=" + run;
	}

}
