package com.example.reports

import dev.taskqueue.NonRetryableTaskException
import dev.taskqueue.TaskHandler
import dev.taskqueue.TaskQueue
import dev.taskqueue.TaskQueueOperations
import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.context.TestConfiguration
import org.springframework.context.annotation.Bean
import org.springframework.jdbc.core.simple.JdbcClient
import org.springframework.transaction.support.TransactionSynchronizationManager
import java.time.Duration
import java.time.Instant
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.coroutines.cancellation.CancellationException

/**
 * docs/kotlin.md, run by the application's real worker: a `suspend fun` handler runs in the task's transaction on the
 * handler thread, before and after it suspends; its failure is the task's; its queue's timeout cancels its coroutine.
 */
@SpringBootTest(
    properties = [
        "taskqueue.queues.failing.max-attempts=1",
        "taskqueue.queues.slow.max-attempts=1",
        "taskqueue.queues.slow.timeout=1s",
    ],
)
@AutoConfigureTaskQueueDatabase
class SuspendingHandlersTests {

    @Autowired lateinit var reports: Reports
    @Autowired lateinit var taskQueue: TaskQueue
    @Autowired lateinit var jdbc: JdbcClient
    @Autowired lateinit var operations: TaskQueueOperations
    @Autowired lateinit var probes: Probes

    @Test
    fun aSuspendingHandlerRunsInTheTasksTransaction() {
        reports.requestReport(1, "Quarterly")
        reports.requestReport(2, "Yearly")

        awaitCount("SELECT count(*) FROM report", 2)
        assertThat(jdbc.sql("SELECT id, pages, attempt FROM report ORDER BY id").query().listOfRows())
            .containsExactly(
                mapOf<String, Any>("id" to 1L, "pages" to 9, "attempt" to 1),
                mapOf<String, Any>("id" to 2L, "pages" to 6, "attempt" to 1),
            )
        await("reports drained") { operations.queueStats().filter { it.queue() == "reports" }.all { it.ready() + it.running() == 0L } }
    }

    @Test
    fun theCoroutineStaysOnTheHandlerThreadAndInTheTransaction() {
        taskQueue.enqueue("probe", "one")

        assertThat(probes.seen.await(30, TimeUnit.SECONDS)).isTrue()
        assertThat(probes.threads).hasSize(2).doesNotContainNull()
        assertThat(probes.threads[0]).isEqualTo(probes.threads[1])
        assertThat(probes.inTransaction).containsExactly(true, true)
    }

    @Test
    fun whatTheHandlerThrowsIsTheTasksFailure() {
        taskQueue.enqueue("failing", "x")

        await("a dead letter") { operations.deadTasks("failing", 10, null).tasks().isNotEmpty() }
        assertThat(operations.deadTasks("failing", 10, null).tasks()).singleElement().satisfies({
            assertThat(it.attempts()).isOne()
            assertThat(it.errorLine()).isEqualTo("dev.taskqueue.NonRetryableTaskException: the card was declined")
        })
        assertThat(probes.failingRuns).hasSize(1)
    }

    @Test
    fun theQueuesTimeoutCancelsTheCoroutine() {
        taskQueue.enqueue("slow", "x")

        await("a dead letter") { operations.deadTasks("slow", 10, null).tasks().isNotEmpty() }
        assertThat(operations.deadTasks("slow", 10, null).tasks()).singleElement().satisfies({
            assertThat(it.errorLine()).contains("HandlerTimeoutException: The handler did not finish within PT1S")
        })
        assertThat(probes.slowEnded.await(30, TimeUnit.SECONDS)).isTrue()
        assertThat(probes.slowEndings).singleElement().isInstanceOf(CancellationException::class.java)
        assertThat(probes.slowThreads).hasSize(2)
        assertThat(probes.slowThreads[0]).isEqualTo(probes.slowThreads[1])
    }

    private fun awaitCount(sql: String, expected: Int) {
        await(sql) { jdbc.sql(sql).query(Int::class.java).single() == expected }
        assertThat(jdbc.sql(sql).query(Int::class.java).single()).`as`(sql).isEqualTo(expected)
    }

    private fun await(what: String, condition: () -> Boolean) {
        val deadline = Instant.now().plus(Duration.ofSeconds(30))
        while (!condition() && Instant.now().isBefore(deadline)) {
            Thread.sleep(20)
        }
        assertThat(condition()).`as`(what).isTrue()
    }

    class Probes {
        val seen = CountDownLatch(1)
        val threads: MutableList<Thread?> = Collections.synchronizedList(mutableListOf())
        val inTransaction: MutableList<Boolean> = Collections.synchronizedList(mutableListOf())
        val failingRuns: MutableList<String> = Collections.synchronizedList(mutableListOf())
        val slowEnded = CountDownLatch(1)
        val slowEndings: MutableList<Throwable> = Collections.synchronizedList(mutableListOf())
        val slowThreads: MutableList<Thread> = Collections.synchronizedList(mutableListOf())

        @TaskHandler(queue = "probe")
        suspend fun probe(payload: String) {
            threads.add(Thread.currentThread())
            inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive())
            delay(10)
            threads.add(Thread.currentThread())
            inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive())
            seen.countDown()
        }

        @TaskHandler(queue = "failing")
        suspend fun failing(payload: String) {
            failingRuns.add(payload)
            delay(10)
            throw NonRetryableTaskException("the card was declined")
        }

        @TaskHandler(queue = "slow")
        suspend fun slow(payload: String) {
            slowThreads.add(Thread.currentThread())
            try {
                delay(60_000)
            } catch (ex: Throwable) {
                slowEndings.add(ex)
                throw ex
            } finally {
                withContext(NonCancellable) {
                    delay(50)                      // a cleanup that suspends still runs, on the handler thread
                    slowThreads.add(Thread.currentThread())
                    slowEnded.countDown()
                }
            }
        }
    }

    @TestConfiguration
    class Handlers {
        @Bean
        fun probes() = Probes()
    }
}
