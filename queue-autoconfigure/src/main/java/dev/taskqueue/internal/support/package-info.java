/**
 * Small pieces shared by the other packages.
 */
@NullMarked
package dev.taskqueue.internal.support;

import org.jspecify.annotations.NullMarked;
