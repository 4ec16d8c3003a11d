package dev.taskqueue.internal.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.taskqueue.QueueName;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration.ScheduleSettings;
import dev.taskqueue.internal.support.StartupFailure;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** The schedules of {@code taskqueue.schedules.<name>}, checked, with messages that name the property at fault. */
final class ConfiguredSchedules {

	private ConfiguredSchedules() {
	}

	static List<Schedule> of(Map<String, ScheduleSettings> configured, JsonMapper mapper) {
		List<Schedule> schedules = new ArrayList<>();
		configured.forEach((name, schedule) -> {
			String where = "taskqueue.schedules." + name;
			ScheduleParser.name(where, name);
			String queue = schedule.queue();
			if (queue == null || !QueueName.isValid(queue)) {
				throw new IllegalArgumentException(where + ".queue must name the queue of a @TaskHandler but was "
						+ ((queue != null) ? "'" + queue + "'" : "not set"));
			}
			ScheduleSpec spec = ScheduleParser.spec(where, schedule.cron(), schedule.zone(),
					Objects.toString(schedule.fixedRate(), null), Objects.toString(schedule.fixedDelay(), null));
			String payload;
			try {
				payload = mapper.writeValueAsString(mapper.readTree(schedule.payload()));
			}
			catch (JacksonException ex) {
				throw new IllegalArgumentException(where + ".payload is not JSON: " + ex.getOriginalMessage(), ex);
			}
			schedules.add(new Schedule(name, queue, payload, spec, schedule.missed(), schedule.overlap(),
					where));
		});
		return schedules;
	}

	/** What a bad configured schedule stops the application with. */
	static StartupFailure failure(IllegalArgumentException ex) {
		return new StartupFailure(String.valueOf(ex.getMessage()), "Change taskqueue.schedules as said above; "
				+ "docs/recurring-tasks.md describes what a schedule may be.", ex);
	}

	/** {@code annotated} and {@code configured} together; one name declared twice is an error naming both. */
	static List<Schedule> merge(List<Schedule> annotated, List<Schedule> configured) {
		List<Schedule> all = new ArrayList<>(annotated);
		for (Schedule schedule : configured) {
			schedule.requireNameFreeIn(annotated);
			all.add(schedule);
		}
		return all;
	}

}
