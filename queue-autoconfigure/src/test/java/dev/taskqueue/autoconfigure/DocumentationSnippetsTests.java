package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What README.md and docs/ show works as shown. Every {@code java}, {@code kotlin} and {@code xml} block is preceded
 * by a comment that says where it is proven, {@code <!-- snippet: consumers/boot4/src/main/java/…/QuickStart.java -->}:
 * a file of a consumer project, which CI builds and tests outside the reactor against the published artifacts
 * ({@code .ci/consumers}). A Java or Kotlin block's lines must appear there one after the other; an XML block's lines
 * in the same order, with others between them (a POM's snippet is a part of its sections). A block proven nowhere
 * says why: {@code <!-- snippet: none, … -->}. Leading and trailing spaces of a line are not compared.
 * <p>
 * Every {@code yaml} block that sets {@code taskqueue.*} binds and validates as the application would bind it: no
 * unknown property, no refused value.
 */
class DocumentationSnippetsTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern FENCE = Pattern.compile("^\\s*```(\\w*)\\s*$");

	private static final Pattern MARKER = Pattern.compile("^\\s*<!-- snippet: (.+?) -->\\s*$");

	static Stream<Snippet> snippets() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages.stream().flatMap(DocumentationSnippetsTests::snippets);
	}

	private static Stream<Snippet> snippets(Path page) {
		List<String> lines = read(page);
		List<Snippet> found = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher fence = FENCE.matcher(lines.get(i));
			if (!fence.matches() || fence.group(1).isEmpty()) {
				continue;
			}
			int start = i;
			List<String> body = new ArrayList<>();
			while (++i < lines.size() && !FENCE.matcher(lines.get(i)).matches()) {
				body.add(lines.get(i));
			}
			String marker = null;
			for (int j = start - 1; j >= 0; j--) {
				if (!lines.get(j).isBlank()) {
					Matcher matcher = MARKER.matcher(lines.get(j));
					marker = matcher.matches() ? matcher.group(1) : null;
					break;
				}
			}
			found.add(new Snippet(ROOT.relativize(page) + ":" + (start + 1), fence.group(1), body, marker));
		}
		return found.stream();
	}

	/**
	 * The version users are told to use: the newest release in CHANGELOG.md ({@code ## [0.1.0] - 2027-01-15}), or,
	 * before the first one, the version this build makes, which the README says to install from source. README.md
	 * and both consumers say it (CI builds the consumers with {@code -Dtaskqueue.version} set to this build's).
	 */
	@Test
	void usersAreToldTheVersionTheyCanGet() {
		Matcher revision = Pattern.compile("-Drevision=(\\S+)")
			.matcher(String.join("\n", read(ROOT.resolve(".mvn/maven.config"))));
		assertThat(revision.find()).as(".mvn/maven.config sets -Drevision").isTrue();
		Matcher released = Pattern.compile("(?m)^## \\[(\\d+\\.\\d+\\.\\d+)\\] - \\d{4}-\\d{2}-\\d{2}")
			.matcher(String.join("\n", read(ROOT.resolve("CHANGELOG.md"))));
		String version = released.find() ? released.group(1) : revision.group(1);
		String expected = "<taskqueue.version>" + version + "</taskqueue.version>";
		for (String file : List.of("README.md", "consumers/boot4/pom.xml", "consumers/kotlin/pom.xml",
				"consumers/boot35/pom.xml")) {
			assertThat(read(ROOT.resolve(file))).as(file).anyMatch((line) -> line.strip().equals(expected));
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("snippets")
	void worksAsShown(Snippet snippet) {
		switch (snippet.language()) {
			case "java", "kotlin", "xml" -> assertProven(snippet);
			case "yaml" -> assertBinds(snippet);
			default -> {
				// shell sessions, SQL, output: shown, not run
			}
		}
	}

	private static void assertProven(Snippet snippet) {
		if (snippet.marker() == null) {
			fail("%s: a %s block without <!-- snippet: path --> before it; put its code in the consumer project "
					+ "(consumers/) and name the file, or say <!-- snippet: none, why -->", snippet.where(),
					snippet.language());
		}
		if (snippet.marker().startsWith("none")) {
			assertThat(snippet.marker()).as("%s: a snippet proven nowhere says why", snippet.where())
				.startsWith("none, ");
			return;
		}
		Path file = ROOT.resolve(snippet.marker());
		assertThat(file).as("%s names %s", snippet.where(), snippet.marker()).isRegularFile();
		List<String> expected = snippet.lines().stream().map(String::strip).toList();
		List<String> actual = read(file).stream().map(String::strip).toList();
		if (!snippet.language().equals("xml")) {
			assertThat(java.util.Collections.indexOfSubList(actual, expected))
				.as("%s: these lines, one after the other, in %s:%n%s", snippet.where(), snippet.marker(),
						String.join("\n", snippet.lines()))
				.isNotNegative();
		}
		else {
			int at = 0;
			for (String line : expected) {
				if (line.isEmpty()) {
					continue;
				}
				int found = actual.subList(at, actual.size()).indexOf(line);
				assertThat(found).as("%s: line '%s' in %s after line %d", snippet.where(), line, snippet.marker(), at)
					.isNotNegative();
				at += found + 1;
			}
			// Each <dependency> whole, as written: one that lost its <type> or <scope> would not do what it shows.
			for (int start = expected.indexOf("<dependency>"); start >= 0;
					start = indexOf(expected, "<dependency>", start + 1)) {
				int end = indexOf(expected, "</dependency>", start);
				List<String> dependency = expected.subList(start, (end < 0) ? expected.size() : end + 1);
				assertThat(java.util.Collections.indexOfSubList(actual, dependency))
					.as("%s: this dependency, line for line, in %s:%n%s", snippet.where(), snippet.marker(),
							String.join("\n", dependency))
					.isNotNegative();
			}
		}
	}

	private static int indexOf(List<String> lines, String line, int from) {
		for (int i = from; i < lines.size(); i++) {
			if (lines.get(i).equals(line)) {
				return i;
			}
		}
		return -1;
	}

	private static void assertBinds(Snippet snippet) {
		List<PropertySource<?>> sources;
		try {
			sources = new YamlPropertySourceLoader().load(snippet.where(),
					new ByteArrayResource(String.join("\n", snippet.lines()).getBytes(StandardCharsets.UTF_8)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		sources.forEach(environment.getPropertySources()::addLast);
		UnknownPropertyCheck.requireKnown(environment);
		Binder.get(environment)
			.bindOrCreate("taskqueue", Bindable.of(TaskQueueProperties.class), new ValidationBindHandler(
					new IgnoreTopLevelConverterNotFoundBindHandler(), new TaskQueueProperties()));
	}

	private static List<String> read(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	record Snippet(String where, String language, List<String> lines, String marker) {

		@Override
		public String toString() {
			return this.where + " (" + this.language + ")";
		}

	}

}
