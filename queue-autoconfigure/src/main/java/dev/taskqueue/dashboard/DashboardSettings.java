package dev.taskqueue.dashboard;

import java.time.Duration;

/**
 * The settings the pages need, resolved once.
 *
 * @param path the dashboard's path, without the servlet context path
 * @param readOnly whether actions are refused
 * @param refreshInterval how often the overview reloads itself
 * @param countLimit the count at which the statistics stop counting
 */
record DashboardSettings(String path, boolean readOnly, Duration refreshInterval, int countLimit) {
}
