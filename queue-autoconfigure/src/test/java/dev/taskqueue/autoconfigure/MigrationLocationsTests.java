package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migrations of CockroachDB and YugabyteDB are PostgreSQL's (docs/distributed-sql.md): the same files, the same
 * objects created, and no difference but the sharding of keys; a script that is the same is shared, not copied. A
 * migration added to {@code db/taskqueue} that is neither shared nor copied to every database fails here.
 */
class MigrationLocationsTests {

	// The objects a migration creates or adds, by name: what must be the same on every database.
	private static final Pattern OBJECT = Pattern.compile(
			"(CREATE TABLE|CREATE UNIQUE INDEX|CREATE INDEX|CREATE SEQUENCE|ADD COLUMN|ALTER TABLE|DROP \\w+) (\\w+)");

	/**
	 * Versions that tune what only PostgreSQL has (autovacuum): on the other databases they are a statement that
	 * does nothing, so that every database keeps every version number.
	 */
	private static final Set<String> POSTGRESQL_ONLY = Set.of("V12__queue_autovacuum.sql");

	@Test
	void databaseIsToldFromItsVersion() {
		assertThat(MigrationLocations.forVersion("PostgreSQL 18.1 on x86_64-pc-linux-gnu, compiled by gcc"))
			.isEqualTo(MigrationLocations.POSTGRESQL);
		assertThat(MigrationLocations.forVersion("CockroachDB CCL v25.2.4 (x86_64-pc-linux-gnu, built 2025/07/29)"))
			.isEqualTo(MigrationLocations.COCKROACHDB);
		assertThat(MigrationLocations.forVersion("PostgreSQL 11.2-YB-2.20.7.0-b0 on x86_64-pc-linux-gnu"))
			.isEqualTo(MigrationLocations.YUGABYTEDB);
		assertThat(MigrationLocations.forVersion("PostgreSQL 15.2-YB-2025.2.1.0-b0 on x86_64-pc-linux-gnu"))
			.isEqualTo(MigrationLocations.YUGABYTEDB);
	}

	@ParameterizedTest
	@EnumSource(names = { "COCKROACHDB", "YUGABYTEDB" })
	void everyMigrationHasACopyThatCreatesTheSameObjects(MigrationLocations database) {
		Map<String, String> postgresql = scripts(MigrationLocations.POSTGRESQL);
		Map<String, String> copies = scripts(database);
		assertThat(copies.keySet()).as("the migrations in " + List.of(database.locations()))
			.isEqualTo(postgresql.keySet());
		postgresql.forEach((name, script) -> assertThat(objects(copies.get(name))).as(database + " " + name)
			.isEqualTo(POSTGRESQL_ONLY.contains(name) ? List.of() : objects(script)));
	}

	@Test
	void yugabyteCopiesDifferOnlyInAscendingKeysAndFillfactor() {
		Map<String, String> postgresql = scripts(MigrationLocations.POSTGRESQL);
		scripts(MigrationLocations.YUGABYTEDB).forEach((name, script) -> {
			assertThat(statements(script)).as(name).doesNotContain("fillfactor");
			if (POSTGRESQL_ONLY.contains(name)) {
				assertThat(statements(script)).as(name).isEqualTo("SELECT 1;");
				return;
			}
			assertThat(statements(script).replace(" ASC", "")).as(name)
				.isEqualTo(statements(postgresql.get(name)).replace(" WITH (fillfactor = 80)", ""));
		});
	}

	@Test
	void cockroachCopiesDifferOnlyInTheHashShardedKeysOfVersions1And2AndTheClaimIndexOf9() {
		Map<String, String> postgresql = scripts(MigrationLocations.POSTGRESQL);
		Map<String, String> cockroach = scripts(MigrationLocations.COCKROACHDB);
		cockroach.forEach((name, script) -> {
			if (POSTGRESQL_ONLY.contains(name)) {
				assertThat(statements(script)).as(name).isEqualTo("SELECT 1;");
			}
			else if (!name.startsWith("V1__") && !name.startsWith("V2__")) {
				assertThat(statements(script).replace(" USING HASH WITH (bucket_count = 16)", "")).as(name)
					.isEqualTo(statements(postgresql.get(name)));
			}
		});
		assertThat(statements(cockroach.get("V9__hash_sharded_claims.sql")))
			.contains("(queue, bucket, priority DESC, run_at, id) USING HASH WITH (bucket_count = 16) WHERE");
		assertThat(statements(cockroach.get("V1__create_taskqueue_tables.sql")))
			.contains("CONSTRAINT taskqueue_task_pkey PRIMARY KEY (id) USING HASH WITH (bucket_count = 16)")
			.contains("CONSTRAINT taskqueue_dead_task_pkey PRIMARY KEY (id) USING HASH WITH (bucket_count = 16)")
			.contains("CREATE INDEX taskqueue_task_ready_idx ON taskqueue_task (queue, priority DESC, run_at, id) "
					+ "USING HASH WITH (bucket_count = 16) WHERE claimed_by IS NULL;")
			.contains("CREATE TABLE taskqueue_session (id uuid PRIMARY KEY,")
			.doesNotContain("fillfactor");
		assertThat(statements(cockroach.get("V2__operations_and_observability.sql")))
			.contains("CONSTRAINT taskqueue_history_pkey PRIMARY KEY (id) USING HASH WITH (bucket_count = 16)");
	}

	/**
	 * An operator's own autovacuum settings of a TaskQueue table (docs/operations.md#bloat) outlive upgrades: version
	 * 12 leaves a parameter that is already set alone, and no other version sets any.
	 */
	@ParameterizedTest
	@EnumSource
	void onlyVersion12SetsAutovacuumParametersAndKeepsThoseAlreadySet(MigrationLocations database) {
		scripts(database).forEach((name, script) -> {
			if (!name.equals("V12__queue_autovacuum.sql")) {
				assertThat(statements(script)).as(name).doesNotContainIgnoringCase("autovacuum")
					.doesNotContainIgnoringCase("reset (");
			}
		});
		assertThat(statements(scripts(MigrationLocations.POSTGRESQL).get("V12__queue_autovacuum.sql")))
			.contains("IF NOT EXISTS (SELECT 1 FROM pg_class c, unnest(c.reloptions) o");
	}

	@Test
	void postgresqlsLocationsAreEveryScriptUnderDbTaskqueue() {
		assertThat(resources(TaskQueueSchemaMigrator.LOCATION).stream().map(Resource::getFilename).sorted())
			.containsExactlyElementsOf(scripts(MigrationLocations.POSTGRESQL).keySet());
	}

	@ParameterizedTest
	@EnumSource
	void eachVersionIsInOneLocationOfADatabase(MigrationLocations database) {
		List<String> names = new ArrayList<>();
		for (String location : database.locations()) {
			names.addAll(resources(location).stream().map(Resource::getFilename).toList());
		}
		assertThat(names).as(List.of(database.locations()).toString()).doesNotHaveDuplicates();
	}

	@ParameterizedTest
	@EnumSource(names = { "COCKROACHDB", "YUGABYTEDB" })
	void aScriptTheSameAsPostgresqlsIsSharedNotCopied(MigrationLocations database) {
		Map<String, String> postgresql = scripts(MigrationLocations.POSTGRESQL);
		String own = database.locations()[database.locations().length - 1];
		assertThat(own).doesNotStartWith(TaskQueueSchemaMigrator.LOCATION + "/");
		for (Resource resource : resources(own)) {
			assertThat(content(resource)).as(own + "/" + resource.getFilename())
				.isNotEqualTo(postgresql.get(resource.getFilename()));
		}
	}

	/** The scripts of {@code database}'s locations by file name. */
	private static Map<String, String> scripts(MigrationLocations database) {
		Map<String, String> scripts = new TreeMap<>();
		for (String location : database.locations()) {
			for (Resource resource : resources(location)) {
				scripts.put(resource.getFilename(), content(resource));
			}
		}
		assertThat(scripts).as(List.of(database.locations()).toString()).isNotEmpty();
		return scripts;
	}

	/** The scripts in {@code location} and its subfolders, as Flyway reads them. */
	private static List<Resource> resources(String location) {
		try {
			return List.of(new PathMatchingResourcePatternResolver().getResources(location + "/**/*.sql"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String content(Resource resource) {
		try {
			return resource.getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The statements of {@code script}, without comments, with all white space as single spaces. */
	private static String statements(String script) {
		return script.replaceAll("--[^\\n]*", "").replaceAll("\\s+", " ").replace("( ", "(").trim();
	}

	private static List<String> objects(String script) {
		List<String> objects = new ArrayList<>();
		Matcher matcher = OBJECT.matcher(statements(script));
		while (matcher.find()) {
			objects.add(matcher.group(1) + " " + matcher.group(2));
		}
		return objects;
	}

}
