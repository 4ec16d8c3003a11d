package dev.taskqueue.autoconfigure;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.dashboard.DashboardConfiguration;
import dev.taskqueue.internal.jdbc.TaskTables;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.servlet.function.RouterFunction;

/**
 * Serves the dashboard under {@code taskqueue.dashboard.path} in a servlet web application with Spring MVC, as
 * functional routes: no component scanning, no template engine, nothing but the pages and one style sheet.
 * Applications with Spring Security protect it like any other path, and TaskQueue checks the view and operate
 * authorities besides. Off unless {@code taskqueue.dashboard.enabled}.
 */
@AutoConfiguration(after = { TaskQueueAutoConfiguration.class, RecurringTaskAutoConfiguration.class })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBean({ TaskQueueOperations.class, TaskTables.class })
@ConditionalOnBooleanProperty(name = "taskqueue.dashboard.enabled")
@Import(DashboardConfiguration.Pages.class)
public class TaskQueueDashboardAutoConfiguration {

	@Bean
	DashboardConfiguration.PageSettings taskQueueDashboardSettings(TaskQueueProperties properties) {
		DashboardProperties dashboard = properties.getDashboard();
		return new DashboardConfiguration.PageSettings(dashboard.getPath(), dashboard.isReadOnly(),
				dashboard.getRefreshInterval(), properties.getMetrics().getCountLimit(),
				properties.getRedaction().isHidePayloads(), dashboard.getSearchLimit(), dashboard.getViewAuthority(),
				dashboard.getOperateAuthority());
	}

}
