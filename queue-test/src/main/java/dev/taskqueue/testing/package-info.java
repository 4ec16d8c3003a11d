/**
 * Test support for applications that use TaskQueue: {@link dev.taskqueue.testing.TaskQueueTester}, configured in
 * every {@code @SpringBootTest} when the {@code queue-test} module is a test dependency.
 */
@NullMarked
package dev.taskqueue.testing;

import org.jspecify.annotations.NullMarked;
