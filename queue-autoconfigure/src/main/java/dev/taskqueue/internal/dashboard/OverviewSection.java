package dev.taskqueue.internal.dashboard;

/**
 * A part of the overview page below the queues and sessions, such as recurring schedules or batches: a bean of
 * this type in the dashboard's auto-configuration is shown, in bean order, with no change to the page itself.
 */
interface OverviewSection {

	/** The section's heading. */
	String title();

	/** Its content; reads the database as it needs, with bounded statements. */
	Html render(PageContext context);

}
