package com.example.reports

import dev.taskqueue.TaskContext
import dev.taskqueue.TaskHandler
import dev.taskqueue.TaskQueue
import kotlinx.coroutines.delay
import org.springframework.jdbc.core.simple.JdbcClient
import org.springframework.stereotype.Component
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

data class RenderReport(val reportId: Long, val title: String)

@Service
class Reports(private val taskQueue: TaskQueue) {

    @Transactional
    fun requestReport(reportId: Long, title: String) {
        taskQueue.enqueue("reports", RenderReport(reportId, title))
    }
}

@Component
class ReportTasks(private val renderer: Renderer, private val jdbc: JdbcClient) {

    @TaskHandler(queue = "reports")
    suspend fun render(task: RenderReport, context: TaskContext) {
        val pages = renderer.render(task.title)   // suspends; the task's transaction waits on this thread
        jdbc.sql("INSERT INTO report (id, pages, attempt) VALUES (?, ?, ?)")
            .params(task.reportId, pages, context.attempt())
            .update()                              // commits with the task's completion
    }
}

@Component
class Renderer {

    suspend fun render(title: String): Int {
        delay(20)                                  // stands for a call to a suspending client
        return title.length
    }
}
