package dev.taskqueue.testing;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.ContextCustomizer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which test classes {@link TaskQueueDatabaseContextCustomizerFactory} gives a database, and that its customizer
 * leaves Spring's context cache working. No database: what the customizer does is in
 * {@code AutoConfigureTaskQueueDatabaseIntegrationTests}.
 */
class TaskQueueDatabaseContextCustomizerFactoryTests {

	private final TaskQueueDatabaseContextCustomizerFactory factory = new TaskQueueDatabaseContextCustomizerFactory();

	@Test
	void onlyTestsWithTheAnnotationGetADatabase() {
		assertThat(customizer(Annotated.class)).isNotNull();
		assertThat(customizer(NotAnnotated.class)).isNull();
	}

	@Test
	void findsItOnASuperclassAnEnclosingClassAndAsAMetaAnnotation() {
		assertThat(customizer(Subclass.class)).isNotNull();
		assertThat(customizer(Annotated.Inner.class)).isNotNull();
		assertThat(customizer(MetaAnnotated.class)).isNotNull();
	}

	@Test
	void customizersAreEqualSoThatTheContextCacheKeepsWorking() {
		ContextCustomizer one = customizer(Annotated.class);
		ContextCustomizer other = customizer(MetaAnnotated.class);
		assertThat(one).isEqualTo(other).hasSameHashCodeAs(other).isNotSameAs(other);
		assertThat(one).isNotEqualTo(null).isNotEqualTo(new Object());
	}

	private ContextCustomizer customizer(Class<?> testClass) {
		return this.factory.createContextCustomizer(testClass, List.of());
	}

	@AutoConfigureTaskQueueDatabase
	static class Annotated {

		@Nested
		class Inner {

		}

	}

	static class NotAnnotated {

	}

	static class Subclass extends Annotated {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@AutoConfigureTaskQueueDatabase
	@interface DatabaseTest {

	}

	@DatabaseTest
	static class MetaAnnotated {

	}

}
