package dev.taskqueue.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the test's application context a new, empty PostgreSQL database of its own, in place of the database the
 * application configures: {@code spring.datasource.url}, {@code username}, {@code password} and
 * {@code driver-class-name} are replaced, above every other property source, so a test never runs against the
 * developer's own database.
 * <p>
 * The database is on an embedded PostgreSQL, started once per JVM when the first such context starts and stopped
 * when the JVM exits, after Spring Boot has closed the application contexts; or, when the environment variable
 * {@code TASKQUEUE_TEST_JDBC_URL} names a server ({@code jdbc:postgresql://host:port/postgres?user=...}), on that
 * server, where the databases are dropped when the JVM exits. Each application context gets its own database; test
 * classes that share a cached context share its database.
 * <p>
 * Works on the test class, a superclass, an enclosing class of a {@code @Nested} test, and as a meta-annotation.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureTaskQueueDatabase
 * class SignupServiceTests { ... }
 * </pre>
 *
 * @see TaskQueueDatabaseContextCustomizerFactory
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureTaskQueueDatabase {

}
