/**
 * Test support for applications that use TaskQueue: {@link dev.taskqueue.testing.TaskQueueTester}, configured in
 * every {@code @SpringBootTest} when the {@code queue-test} module is a test dependency, and
 * {@link dev.taskqueue.testing.AutoConfigureTaskQueueDatabase}, a new database of the test's own on an embedded
 * PostgreSQL.
 */
@NullMarked
package dev.taskqueue.testing;

import org.jspecify.annotations.NullMarked;
