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
 * Boot's properties, no package cycle, the public API depends on no internal package, and a ceiling on the public
 * types outside {@code autoconfigure}.
 */
class ArchitectureTests {

	/**
	 * Public top-level types outside {@code dev.taskqueue.autoconfigure}; issue 27 brings it down to 45. 89 since
	 * the bloat figures (issue 29): jdbc's BloatRepository and operations' BloatWatch, which metrics, actuate,
	 * dashboard and autoconfigure share.
	 */
	static final int MAX_PUBLIC_TYPES = 89;

	private static final String ROOT = "dev.taskqueue";

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
	 * statement's text ({@code jdbc/StorageDriver} holds what differs per database).
	 */
	@Test
	void noSqlIsMadeByReplacingText() throws IOException {
		List<String> replacing = new ArrayList<>();
		try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/taskqueue/jdbc"))) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				List<String> lines = Files.readAllLines(file);
				for (int i = 0; i < lines.size(); i++) {
					if (lines.get(i).matches(".*\\.replace(All|First)?\\(\\s*\".*")) {
						replacing.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
					}
				}
			}
		}
		assertThat(replacing).as("text replaced in the jdbc package").isEmpty();
	}

	@Test
	void subPackagesAreFreeOfCycles() {
		slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(MAIN);
	}

	/** {@code (*)..} above leaves out the root package: a cycle through it is found here. */
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
	void publicTypesOutsideAutoconfigure() {
		Set<String> publicTypes = new TreeSet<>();
		for (JavaClass type : MAIN) {
			if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
					&& !type.getSimpleName().equals("package-info")
					&& !type.getPackageName().startsWith(ROOT + ".autoconfigure")) {
				publicTypes.add(type.getName());
			}
		}
		assertThat(publicTypes.size())
			.as("public types outside autoconfigure (at most %d):%n%s", MAX_PUBLIC_TYPES,
					String.join(System.lineSeparator(), publicTypes))
			.isLessThanOrEqualTo(MAX_PUBLIC_TYPES);
	}

	/** Every top-level class of the worker is a slice: a cycle between two of them fails. */
	@Test
	void noClassCycleInTheWorker() {
		slices().assignedFrom(new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass type) {
				return type.getPackageName().equals(ROOT + ".worker")
						? SliceIdentifier.of(type.getName().replaceFirst("\\$.*", "")) : SliceIdentifier.ignore();
			}

			@Override
			public String getDescription() {
				return "the top-level classes of " + ROOT + ".worker";
			}

		}).should().beFreeOfCycles().check(MAIN);
	}

	/** The root package and the top-level packages under it, with which of them each depends on. */
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
		if (!name.startsWith(ROOT + ".")) {
			return null;
		}
		int end = name.indexOf('.', ROOT.length() + 1);
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
