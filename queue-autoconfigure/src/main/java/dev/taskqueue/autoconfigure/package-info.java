/**
 * Auto-configuration of TaskQueue on the application's {@code DataSource}, its properties and its own Flyway
 * migration.
 */
@NullMarked
package dev.taskqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
