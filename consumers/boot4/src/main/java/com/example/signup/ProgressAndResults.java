package com.example.signup;

import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueueOperations;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

// docs/progress-and-results.md: DocumentationSnippetsTests checks that the lines are the page's.

record CsvUpload(String fileId, int lines) {}

record UploadSummary(int imported, int rejected) {}

@Component
class Uploads {

    @TaskHandler(queue = "uploads")
    UploadSummary upload(CsvUpload upload, TaskContext context) {
        int imported = 0;
        for (int line = 1; line <= upload.lines(); line++) {
            imported++;                                           // import one line
            context.progress(line * 100 / upload.lines(), "line " + line + " of " + upload.lines());
        }
        return new UploadSummary(imported, 0);                    // kept as JSON with the task's completion
    }
}

@Service
class UploadStatus {

    private final TaskQueueOperations operations;

    UploadStatus(TaskQueueOperations operations) {
        this.operations = operations;
    }

    String describe(UUID id) {
        Optional<UploadSummary> summary = operations.result(id, UploadSummary.class);
        if (summary.isPresent()) {
            return "imported " + summary.get().imported() + " lines";
        }
        return operations.progress(id)
            .map((progress) -> progress.percent() + "%: " + progress.message())
            .orElse("waiting");
    }
}

@Component
class UploadTotals {

    private final TaskQueueOperations operations;

    UploadTotals(TaskQueueOperations operations) {
        this.operations = operations;
    }

    // The "then" task of enqueueBatch(uploads, TaskRequest.of("upload-totals", "all")): reads its parts' results.
    @TaskHandler(queue = "upload-totals")
    long total(String what, TaskContext context) {
        long[] imported = { 0 };
        operations.batchResults(context.batch().id(), UploadSummary.class,
                (id, summary) -> imported[0] += summary.imported());
        return imported[0];
    }
}
