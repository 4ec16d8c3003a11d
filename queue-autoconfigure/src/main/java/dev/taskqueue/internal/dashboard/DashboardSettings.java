package dev.taskqueue.internal.dashboard;

import java.time.Duration;

/**
 * The settings the pages need, resolved once by the auto-configuration.
 *
 * @param path the dashboard's path, without the servlet context path
 * @param readOnly whether actions are refused
 * @param refreshInterval how often the overview reloads itself
 * @param countLimit the count at which the statistics stop counting
 * @param hidePayloads whether payloads are hidden, whatever the {@code TaskRedactor}
 * @param searchLimit how many tasks a search shows at most
 * @param viewAuthority the authority that lets a user see the pages, with Spring Security
 * @param operateAuthority the authority that lets a user act (and see the pages), with Spring Security
 */
public record DashboardSettings(String path, boolean readOnly, Duration refreshInterval, int countLimit,
		boolean hidePayloads, int searchLimit, String viewAuthority, String operateAuthority) {
}
