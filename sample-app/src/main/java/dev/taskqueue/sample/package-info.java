/**
 * A small application that uses TaskQueue: signups whose welcome emails are tasks, and demo tasks to watch.
 */
@NullMarked
package dev.taskqueue.sample;

import org.jspecify.annotations.NullMarked;
