package dev.taskqueue.internal.schedule;

import java.util.List;

import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.support.StartupFailure;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Reads the payload of each {@code taskqueue.schedules.<name>} as its queue's handler would, once every handler is
 * known (after all singletons are created). A payload that does not fit the handler's parameter type stops the
 * application here; before, every tick enqueued a task that went straight to the dead letters. A queue with no
 * handler in this instance is left alone: another instance may have it.
 */
final class ConfiguredSchedulePayloads implements SmartInitializingSingleton {

	private final List<Schedule> configured;

	private final TaskHandlerRegistry handlers;

	private final JsonMapper mapper;

	ConfiguredSchedulePayloads(List<Schedule> configured, TaskHandlerRegistry handlers, JsonMapper mapper) {
		this.configured = List.copyOf(configured);
		this.handlers = handlers;
		this.mapper = mapper;
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (Schedule schedule : this.configured) {
			TaskHandlerMethod handler = this.handlers.get(schedule.queue());
			if (handler == null || handler.payloadType() == Object.class) {
				continue;
			}
			try {
				this.mapper.readerFor(this.mapper.getTypeFactory().constructType(handler.payloadType()))
					.readValue(schedule.payload());
			}
			catch (JacksonException | IllegalArgumentException ex) {
				throw new StartupFailure(schedule.source() + ".payload " + schedule.payload() + " cannot be read as "
						+ handler.payloadType().getTypeName() + ", the payload type of " + handler.describe()
						+ " on queue '" + schedule.queue() + "' that schedule '" + schedule.name() + "' enqueues on: "
						+ ((ex instanceof JacksonException jackson) ? jackson.getOriginalMessage() : ex.getMessage()),
						"Change " + schedule.source() + ".payload to JSON that the handler's parameter type reads, or "
								+ "point " + schedule.source() + ".queue at another handler.",
						ex);
			}
		}
	}

}
