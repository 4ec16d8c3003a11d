/**
 * The {@code taskqueue} actuator endpoint and health indicator, configured when the application has the
 * actuator.
 */
@NullMarked
package dev.taskqueue.actuate;

import org.jspecify.annotations.NullMarked;
