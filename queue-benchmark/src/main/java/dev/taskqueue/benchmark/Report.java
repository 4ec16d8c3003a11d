package dev.taskqueue.benchmark;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Prints every result as it is measured, one {@code RESULT} line each, and at the end a summary table with the
 * median of each figure and of each ratio over the runs.
 */
final class Report {

	private final PrintStream out;

	private final Map<String, List<Result>> results = new LinkedHashMap<>();

	private final List<String> failures = new ArrayList<>();

	private int run = 1;

	Report(PrintStream out) {
		this.out = out;
	}

	void startRun(int run) {
		this.run = run;
	}

	/** A line about what is going on, not a result. */
	void info(String message) {
		this.out.println("# " + message);
	}

	/** A figure taken along the way, such as one of W5's samples. */
	void sample(String workload, String line) {
		this.out.println("SAMPLE " + workload + " " + line);
	}

	void add(Result result) {
		this.results.computeIfAbsent(result.workload() + " " + result.label(), (key) -> new ArrayList<>()).add(result);
		this.out.println(result.line(this.run));
	}

	/** Notes that {@code what} failed; the stack trace goes to stderr. */
	void failed(String what, Exception ex) {
		String message = "FAILED " + what + ": " + ex.getMessage();
		this.failures.add(message);
		this.out.println(message);
		ex.printStackTrace();
	}

	boolean hasFailures() {
		return !this.failures.isEmpty();
	}

	void printSummary() {
		List<String[]> rows = new ArrayList<>();
		rows.add(new String[] { "workload", "result", "median", "other medians", "baseline", "ratio", "ratios by run" });
		this.results.values().forEach((runs) -> rows.add(summaryRow(runs)));
		this.out.println();
		this.out.println("SUMMARY (median over runs; ratio = result / baseline measured in the same run)");
		printTable(rows);
		this.failures.forEach(this.out::println);
	}

	private static String[] summaryRow(List<Result> runs) {
		Result first = runs.get(0);
		List<String> medians = IntStream.range(0, first.metrics().size())
			.mapToObj((i) -> first.metrics().get(i).withValue(median(runs, (r) -> r.metrics().get(i).value())))
			.map(Metric::toString)
			.toList();
		String others = String.join(" ", medians.subList(1, medians.size()));
		if (!first.hasBaseline()) {
			return new String[] { first.workload(), first.label(), medians.get(0), others, "", "", "" };
		}
		return new String[] { first.workload(), first.label(), medians.get(0), others, first.baseline(),
				format(median(runs, Result::ratio)),
				runs.stream().map((r) -> format(r.ratio())).collect(Collectors.joining(" ")) };
	}

	private void printTable(List<String[]> rows) {
		int[] widths = new int[rows.get(0).length];
		for (String[] row : rows) {
			for (int i = 0; i < row.length; i++) {
				widths[i] = Math.max(widths[i], row[i].length());
			}
		}
		for (String[] row : rows) {
			StringBuilder line = new StringBuilder();
			for (int i = 0; i < row.length; i++) {
				line.append(String.format("%-" + (widths[i] + 2) + "s", row[i]));
			}
			this.out.println(line.toString().stripTrailing());
		}
	}

	private static double median(List<Result> runs, ToDoubleFunction<Result> figure) {
		double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
	}

	private static String format(double ratio) {
		return String.format(Locale.ROOT, "%.2f", ratio);
	}

}
