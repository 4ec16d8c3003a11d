/**
 * Small pieces shared by the other packages.
 */
@NullMarked
package dev.taskqueue.support;

import org.jspecify.annotations.NullMarked;
