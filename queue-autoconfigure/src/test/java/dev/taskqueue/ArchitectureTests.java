package dev.taskqueue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.ConfigurationProperties;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.core.domain.properties.CanBeAnnotated.Predicates.annotatedWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package boundaries of queue-autoconfigure's main classes (issue 27): only {@code autoconfigure} knows Spring
 * Boot's properties, no package cycle, the public API depends on no internal package, and ceilings on the public
 * types: those a user may use (outside {@code internal} and {@code autoconfigure}) and those Java needs public only
 * because another internal package calls them.
 */
class ArchitectureTests {

	/**
	 * Public top-level types outside {@code dev.taskqueue.internal} and {@code dev.taskqueue.autoconfigure}. 24 since
	 * dependencies between tasks (issue 29): DependencyFailure, the policy a request chooses. 25 since
	 * HandlerTimeoutException left the worker, so that a RetryPolicy can tell a timeout apart. 26 since progress
	 * and results (issue 29): TaskProgress, what TaskContext keeps and TaskQueueOperations.progress returns, a
	 * value that a user's code reads and no existing type describes.
	 */
	static final int MAX_API_TYPES = 26;

	/**
	 * Public top-level types outside {@code dev.taskqueue.autoconfigure}, {@code internal} included: those Java needs
	 * public because another package calls them. 89 since the bloat figures (issue 29): jdbc's BloatRepository and
	 * operations' BloatWatch, which metrics, actuate, dashboard and autoconfigure share. 91 since dependencies
	 * between tasks (issue 29): the API's DependencyFailure, and jdbc's DependencyRepository, which the producer and
	 * the operations' sweeper share. 92 with the API's HandlerTimeoutException. 93 with the audit log (issue 28):
	 * jdbc's AuditRepository, which the operations write and the dashboard reads. 94 with support's
	 * CallerTransactions, which the operations (made in autoconfigure) and the schedules' control share. 97 since
	 * progress and results (issue 29): the API's TaskProgress, and jdbc's ProgressRepository and ResultRepository,
	 * which the worker, the operations (reads, retention) and autoconfigure share. 90 since each concern's SQL lives
	 * with it (issue 27): the schedules', bloat, retention, audit, queue statistics and per-minute repositories and
	 * the handlers' lazy-init filter are package-private in the package that uses them. 81 since the worker's SQL
	 * lives with it (issue 27): its claims, completions, sessions and limited claims are package-private in the
	 * worker, which autoconfigure reaches through TaskWorker.builder (its settings nested there), while jdbc's
	 * HotStatements, Micros, AttemptLog and OrderedKeys, which the worker's statements and jdbc's share, are public.
	 * 72 since the dashboard's queries, their views and its settings, the migration lock and the schema check (the
	 * migrator's, in autoconfigure), the producer's ids (DefaultTaskQueue's, through which the schedules enqueue) and
	 * NewTask (EnqueueRepository's) left the public types. 71 with the worker's PayloadReader, which the worker's
	 * builder now makes. 69 since the operations have one entry (issue 27): OperationsConfiguration, imported by
	 * autoconfigure with plain settings, makes the operations, the retention pruner, the topics' subscriptions and the
	 * batch sweeper, package-private now, while BloatWatch (its reports) and ActingAs (the audit log's actor) stay
	 * public for actuate, the dashboard and metrics. 66 since each concern owns its statements on the progress and
	 * result tables (issue 27): the worker's ProgressRepository writes and deletes progress, the operations'
	 * ProgressQueries reads and prunes it, their ResultRepository reads and prunes results (the endpoint reads through
	 * OperationsConfiguration.results), all package-private; and the handlers' annotation processor is
	 * package-private behind TaskHandlerRegistry, the handler package's entry.
	 */
	static final int MAX_PUBLIC_TYPES = 66;

	private static final String ROOT = "dev.taskqueue";

	private static final String INTERNAL = ROOT + ".internal";

	private static final JavaClasses MAIN = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
		.importPackages(ROOT);

	@Test
	void onlyAutoconfigureKnowsTheProperties() {
		DescribedPredicate<JavaClass> properties = resideInAPackage(ROOT + ".autoconfigure..")
			.and(simpleNameEndingWith("Properties"))
			.or(annotatedWith(ConfigurationProperties.class))
			.as("a *Properties class of autoconfigure or a @ConfigurationProperties class");
		ArchRule rule = noClasses().that()
			.resideOutsideOfPackage(ROOT + ".autoconfigure..")
			.should()
			.dependOnClassesThat(properties)
			.because("runtime packages take plain settings that autoconfigure builds from the properties");
		rule.check(MAIN);
	}

	/**
	 * Each database's statements are written whole or composed from constants, never made by rewriting another
	 * statement's text ({@code worker/StorageDriver} holds what differs per database). Every internal package that
	 * talks to JDBC holds SQL (each concern's statements live with it, issue 27), so each of them is read whole;
	 * outside {@code internal} (the schema migrator's lock and checks in {@code autoconfigure}) each file that does.
	 */
	@Test
	void noSqlIsMadeByReplacingText() throws IOException {
		List<String> replacing = new ArrayList<>();
		Set<Path> sqlFiles = new TreeSet<>();
		Path internal = Path.of("src/main/java/dev/taskqueue/internal");
		try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/taskqueue"))) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				if (Files.readString(file).matches("(?s).*import (java\\.sql|org\\.springframework\\.jdbc)\\..*")) {
					if (file.startsWith(internal)) {
						try (Stream<Path> sqlPackage = Files.list(file.getParent())) {
							sqlPackage.filter((path) -> path.toString().endsWith(".java")).forEach(sqlFiles::add);
						}
					}
					else {
						sqlFiles.add(file);
					}
				}
			}
		}
		assertThat(sqlFiles).as("files that hold SQL").isNotEmpty();
		for (Path file : sqlFiles) {
			List<String> lines = Files.readAllLines(file);
			for (int i = 0; i < lines.size(); i++) {
				if (lines.get(i).matches(".*\\.replace(All|First)?\\(\\s*\".*")) {
					replacing.add(file.getParent().getFileName() + "/" + file.getFileName() + ":" + (i + 1) + ": "
							+ lines.get(i).strip());
				}
			}
		}
		assertThat(replacing).as("text replaced in the files that hold SQL").isEmpty();
	}

	/** Each package under the root, and each under {@code internal}, is a slice. */
	@Test
	void subPackagesAreFreeOfCycles() {
		slices().assignedFrom(new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass type) {
				String slice = topLevelPackage(type.getPackageName());
				return (slice == null || slice.equals(ROOT)) ? SliceIdentifier.ignore() : SliceIdentifier.of(slice);
			}

			@Override
			public String getDescription() {
				return "the packages under " + ROOT + " and under " + INTERNAL;
			}

		}).should().beFreeOfCycles().check(MAIN);
	}

	/** The slices above leave out the root package: a cycle through it is found here. */
	@Test
	void noCycleThroughTheRootPackage() {
		Map<String, Set<String>> uses = packageGraph();
		List<String> cycles = new ArrayList<>();
		for (String sub : uses.getOrDefault(ROOT, Set.of())) {
			if (reaches(uses, sub, ROOT)) {
				cycles.add(ROOT + " -> " + sub + " -> ... -> " + ROOT);
			}
		}
		assertThat(cycles).as("cycles through the root package").isEmpty();
	}

	@Test
	void publicApiDependsOnNoOtherPackage() {
		noClasses().that()
			.resideInAPackage(ROOT)
			.should()
			.dependOnClassesThat(resideInAPackage(ROOT + "..").and(DescribedPredicate.not(resideInAPackage(ROOT))))
			.because("the public API must not carry the internals with it")
			.check(MAIN);
	}

	@Test
	void publicTypesAUserMayUse() {
		Set<String> api = publicTypes(false);
		assertThat(api.size())
			.as("public types outside internal and autoconfigure (at most %d):%n%s", MAX_API_TYPES,
					String.join(System.lineSeparator(), api))
			.isLessThanOrEqualTo(MAX_API_TYPES);
	}

	@Test
	void publicTypesOutsideAutoconfigure() {
		Set<String> all = publicTypes(true);
		assertThat(all.size())
			.as("public types outside autoconfigure (at most %d):%n%s", MAX_PUBLIC_TYPES,
					String.join(System.lineSeparator(), all))
			.isLessThanOrEqualTo(MAX_PUBLIC_TYPES);
	}

	/** Only the root package and {@code actuate} (whose endpoint a security configuration names) are outside it. */
	@Test
	void everyOtherRuntimePackageIsInternal() {
		Set<String> outside = new TreeSet<>();
		for (JavaClass type : MAIN) {
			String name = type.getPackageName();
			if (!name.equals(ROOT) && !name.startsWith(INTERNAL + ".") && !name.equals(ROOT + ".autoconfigure")
					&& !name.equals(ROOT + ".actuate")) {
				outside.add(name);
			}
		}
		assertThat(outside).as("packages that are neither API nor internal").isEmpty();
	}

	private static Set<String> publicTypes(boolean withInternal) {
		Set<String> publicTypes = new TreeSet<>();
		for (JavaClass type : MAIN) {
			String name = type.getPackageName();
			if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
					&& !type.getSimpleName().equals("package-info") && !name.startsWith(ROOT + ".autoconfigure")
					&& (withInternal || !name.startsWith(INTERNAL + "."))) {
				publicTypes.add(type.getName());
			}
		}
		return publicTypes;
	}

	/**
	 * Worker files that hold ordered-key logic (issue 27, the measure is in docs/internals.md): 6 since the worker's
	 * statements for keys are one file (KeyStatements) and the rest of the worker reaches them through
	 * TaskRepository, the Completer and the Mailbox.
	 */
	static final int MAX_KEY_FILES = 6;

	/**
	 * The worker's files whose classes hold ordered-key logic: they depend on the statements or types of keys
	 * ({@code OrderedKeys}, {@code KeyStatements}, {@code KeyRuns}, {@code Outcome.KeyLeftHeadless}), or read what
	 * only keys have ({@code ClaimedTask.orderingKey()}, {@code TaskClaims.Request.headlessKeys()},
	 * {@code ClaimResult.following()}). Carrying a key as a value (a record's component, a column read into it) does
	 * not count; neither does a constant of {@code OrderedKeys} compiled into another statement's text.
	 */
	@Test
	void orderedKeysLiveInFewWorkerFiles() {
		Set<String> keyTypes = Set.of(INTERNAL + ".jdbc.OrderedKeys", INTERNAL + ".worker.KeyStatements",
				INTERNAL + ".worker.KeyRuns", INTERNAL + ".worker.Outcome$KeyLeftHeadless");
		Set<String> keyReads = Set.of(INTERNAL + ".worker.ClaimedTask.orderingKey",
				INTERNAL + ".worker.TaskClaims$Request.headlessKeys", INTERNAL + ".worker.ClaimResult.following");
		Set<String> files = new TreeSet<>();
		for (JavaClass type : MAIN) {
			if (!type.getPackageName().equals(INTERNAL + ".worker")) {
				continue;
			}
			String file = type.getName().replaceFirst("\\$.*", "");
			// A file's own types (a record reading its own components) do not count.
			boolean dependsOnKeys = type.getDirectDependenciesFromSelf().stream()
				.map((dependency) -> dependency.getTargetClass().getName())
				.anyMatch((target) -> keyTypes.contains(target) && !inFile(target, file));
			boolean readsKeys = type.getAccessesFromSelf().stream()
				.filter((access) -> !inFile(access.getTargetOwner().getName(), file))
				.anyMatch((access) -> keyReads.contains(access.getTargetOwner().getName() + "." + access.getName()));
			if (dependsOnKeys || readsKeys) {
				files.add(file.substring(file.lastIndexOf('.') + 1));
			}
		}
		assertThat(files).as("the worker files that hold ordered-key logic").hasSizeLessThanOrEqualTo(MAX_KEY_FILES)
			.containsExactlyInAnyOrder("Completer", "GroupCommit", "KeyRuns", "KeyStatements", "Mailbox",
					"TaskRepository");
	}

	private static boolean inFile(String type, String topLevel) {
		return type.equals(topLevel) || type.startsWith(topLevel + "$");
	}

	/** Every top-level class of the worker is a slice: a cycle between two of them fails. */
	@Test
	void noClassCycleInTheWorker() {
		slices().assignedFrom(new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass type) {
				return type.getPackageName().equals(INTERNAL + ".worker")
						? SliceIdentifier.of(type.getName().replaceFirst("\\$.*", "")) : SliceIdentifier.ignore();
			}

			@Override
			public String getDescription() {
				return "the top-level classes of " + INTERNAL + ".worker";
			}

		}).should().beFreeOfCycles().check(MAIN);
	}

	/** The root package and the packages under it and under {@code internal}, with which of them each depends on. */
	private static Map<String, Set<String>> packageGraph() {
		Map<String, Set<String>> uses = new TreeMap<>();
		for (JavaClass type : MAIN) {
			String from = topLevelPackage(type.getPackageName());
			for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
				String to = topLevelPackage(dependency.getTargetClass().getPackageName());
				if (from != null && to != null && !from.equals(to)) {
					uses.computeIfAbsent(from, (key) -> new TreeSet<>()).add(to);
				}
			}
		}
		return uses;
	}

	private static @Nullable String topLevelPackage(String name) {
		if (name.equals(ROOT)) {
			return ROOT;
		}
		String parent = name.startsWith(INTERNAL + ".") ? INTERNAL : ROOT;
		if (!name.startsWith(parent + ".")) {
			return null;
		}
		int end = name.indexOf('.', parent.length() + 1);
		return (end < 0) ? name : name.substring(0, end);
	}

	private static boolean reaches(Map<String, Set<String>> uses, String from, String to) {
		Map<String, Boolean> seen = new HashMap<>();
		List<String> pending = new ArrayList<>(List.of(from));
		while (!pending.isEmpty()) {
			String next = pending.remove(pending.size() - 1);
			if (next.equals(to)) {
				return true;
			}
			if (seen.put(next, true) == null) {
				pending.addAll(uses.getOrDefault(next, Set.of()));
			}
		}
		return false;
	}

}
