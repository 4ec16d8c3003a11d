package dev.taskqueue.internal.schedule;

import java.util.Map;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration.ScheduleSettings;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Bad {@code @RecurringTask} declarations stop the application with a message naming the bean method. */
class RecurringTaskValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withBean("taskHandlerAnnotationBeanPostProcessor", BeanPostProcessor.class,
				TaskHandlerRegistry::annotationProcessor)
		.withBean(RecurringTaskAnnotationBeanPostProcessor.class)
		.withPropertyValues("reports.cron=0 0 3 * * *");

	@Test
	void findsAScheduleWithItsDefaultNameAndResolvesPlaceholders() {
		this.runner.withUserConfiguration(Good.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Schedule schedule = context.getBean(RecurringTaskAnnotationBeanPostProcessor.class).getSchedules().get(0);
			assertThat(schedule.name()).isEqualTo("good.nightly");
			assertThat(schedule.queue()).isEqualTo("good.nightly");
			assertThat(schedule.spec()).hasToString("cron 0 0 3 * * * Europe/Paris");
			assertThat(TaskHandlerRegistry.of(context.getBeanFactory()).get("good.nightly"))
				.isNotNull();
		});
	}

	@Test
	void badCron() {
		fails(BadCron.class, "@RecurringTask on bean 'recurringTaskValidationTests.BadCron' method BadCron.tick() has an invalid cron expression "
				+ "'0 0 25 * * *'");
	}

	@Test
	void badZone() {
		fails(BadZone.class, "@RecurringTask on bean 'recurringTaskValidationTests.BadZone' method BadZone.tick() has an invalid zone 'Mars/Olympus'");
	}

	@Test
	void badDuration() {
		fails(BadDuration.class, "@RecurringTask on bean 'recurringTaskValidationTests.BadDuration' method BadDuration.tick() has an invalid "
				+ "fixedRate 'often'");
	}

	@Test
	void bothCronAndFixedRate() {
		fails(Both.class, "@RecurringTask on bean 'recurringTaskValidationTests.Both' method Both.tick() must set exactly one of cron, fixedRate "
				+ "and fixedDelay but sets 2");
	}

	@Test
	void wrongParameters() {
		fails(WrongParameters.class, "@RecurringTask on bean 'recurringTaskValidationTests.WrongParameters' method WrongParameters.tick() takes 1 "
				+ "parameter(s); a recurring task takes none or one TaskContext");
	}

	@Test
	void sameNameTwice() {
		fails(SameName.class, "both declare schedule 'report'");
	}

	@Test
	void configuredScheduleNamesTheProperty() {
		ScheduleSettings noQueue = new ScheduleSettings("0 0 * * * *", null, null, null, null, "{}",
				RecurringTask.Missed.RUN_ONCE, RecurringTask.Overlap.SKIP);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConfiguredSchedules.of(Map.of("hourly", noQueue), new JsonMapper()))
			.withMessage("taskqueue.schedules.hourly.queue must name the queue of a @TaskHandler but was not set");
		ScheduleSettings badPayload = new ScheduleSettings("0 0 * * * *", null, null, null, "reports", "{not json",
				RecurringTask.Missed.RUN_ONCE, RecurringTask.Overlap.SKIP);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConfiguredSchedules.of(Map.of("hourly", badPayload), new JsonMapper()))
			.withMessageStartingWith("taskqueue.schedules.hourly.payload is not JSON");
	}

	private void fails(Class<?> configuration, String message) {
		this.runner.withUserConfiguration(configuration).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasMessageContaining(message);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Good {

		@Bean
		Good.Nightly good() {
			return new Nightly();
		}

		static class Nightly {

			@RecurringTask(cron = "${reports.cron}", zone = "Europe/Paris")
			void nightly(TaskContext context) {
			}

		}

	}

	static class BadCron {

		@RecurringTask(cron = "0 0 25 * * *")
		void tick() {
		}

	}

	static class BadZone {

		@RecurringTask(cron = "0 0 2 * * *", zone = "Mars/Olympus")
		void tick() {
		}

	}

	static class BadDuration {

		@RecurringTask(fixedRate = "often")
		void tick() {
		}

	}

	static class Both {

		@RecurringTask(cron = "0 0 2 * * *", fixedRate = "1m")
		void tick() {
		}

	}

	static class WrongParameters {

		@RecurringTask(fixedRate = "1m")
		void tick(String name) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SameName {

		@Bean
		One one() {
			return new One();
		}

		@Bean
		Two two() {
			return new Two();
		}

		static class One {

			@RecurringTask(name = "report", fixedRate = "1m")
			void tick() {
			}

		}

		static class Two {

			@RecurringTask(name = "report", fixedRate = "1m")
			void tick() {
			}

		}

	}

}
