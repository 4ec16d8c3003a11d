package dev.taskqueue.testing;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.testing.TesterTestApplication.Note;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestContextManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AutoConfigureTaskQueueDatabase} against an application whose {@code application.properties} points at a
 * server that does not exist, as a developer's application points at their own database: every test here gets a
 * new database instead, one per application context.
 */
@SpringBootTest(classes = TesterTestApplication.class, properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
class AutoConfigureTaskQueueDatabaseIntegrationTests {

	private static final String NEW_DATABASE = "taskqueue_test_";

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private TaskQueueTester tester;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private Environment environment;

	@Test
	void runsATaskOnANewDatabaseInsteadOfTheConfiguredOne() {
		UUID id = this.taskQueue.enqueue("write", new Note("fresh"));
		this.tester.runAll().assertAllCompleted();
		assertThat(this.jdbc.sql("SELECT count(*) FROM written WHERE task_id = ?").param(id).query(Long.class).single())
			.isOne();
		assertThat(database(this.jdbc)).startsWith(NEW_DATABASE);
		assertThat(this.environment.getProperty("spring.datasource.url")).doesNotContain("developers_own_database")
			.contains(database(this.jdbc));
		assertThat(this.environment.getProperty("spring.datasource.username")).isNotEqualTo("developer");
	}

	@Test
	void differentlyConfiguredTestsGetDifferentDatabasesAndTheSameConfigurationTheSameOne() {
		String first = database(First.class);
		assertThat(first).startsWith(NEW_DATABASE).isNotEqualTo(database(this.jdbc));
		assertThat(database(SameAsFirst.class)).isEqualTo(first);
		assertThat(database(OwnUrl.class)).startsWith(NEW_DATABASE).isNotEqualTo(first);
	}

	@Test
	void worksFromASuperclassAndAsAMetaAnnotation() {
		assertThat(database(Subclass.class)).startsWith(NEW_DATABASE);
		assertThat(database(MetaAnnotated.class)).startsWith(NEW_DATABASE);
	}

	private static String database(Class<?> testClass) {
		ApplicationContext context = new TestContextManager(testClass).getTestContext().getApplicationContext();
		return database(context.getBean(JdbcClient.class));
	}

	private static String database(JdbcClient jdbc) {
		return jdbc.sql("SELECT current_database()").query(String.class).single();
	}

	@Nested
	class InANestedClass {

		@Autowired
		private JdbcClient nestedJdbc;

		@Test
		void theEnclosingClassesAnnotationApplies() {
			assertThat(database(this.nestedJdbc)).startsWith(NEW_DATABASE);
		}

	}

	@SpringBootTest(classes = TesterTestApplication.class,
			properties = { "taskqueue.worker.enabled=false", "spring.main.banner-mode=off" })
	@AutoConfigureTaskQueueDatabase
	static class First {

	}

	@SpringBootTest(classes = TesterTestApplication.class,
			properties = { "taskqueue.worker.enabled=false", "spring.main.banner-mode=off" })
	@AutoConfigureTaskQueueDatabase
	static class SameAsFirst {

	}

	/** The test's own properties lose too: they are the application's configuration as much as its files. */
	@SpringBootTest(classes = TesterTestApplication.class, properties = { "taskqueue.worker.enabled=false",
			"spring.datasource.url=jdbc:postgresql://127.0.0.1:1/named_by_the_test" })
	@AutoConfigureTaskQueueDatabase
	static class OwnUrl {

	}

	@SpringBootTest(classes = TesterTestApplication.class, properties = "taskqueue.worker.enabled=false")
	@AutoConfigureTaskQueueDatabase
	abstract static class AnnotatedSuperclass {

	}

	static class Subclass extends AnnotatedSuperclass {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@SpringBootTest(classes = TesterTestApplication.class,
			properties = { "taskqueue.worker.enabled=false", "spring.main.lazy-initialization=false" })
	@AutoConfigureTaskQueueDatabase
	@interface ApplicationTest {

	}

	@ApplicationTest
	static class MetaAnnotated {

	}

}
