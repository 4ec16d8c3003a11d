package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.flywaydb.core.Flyway;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;

/**
 * Warns when the application has Flyway migrations that nothing will apply. The starter brings {@code flyway-core}
 * for TaskQueue's own migrations, and their log lines at startup look like the application's Flyway at work; but
 * Spring Boot runs the application's migrations only with its Flyway module, which this check is configured
 * without. Quiet when the application runs a {@link Flyway} of its own or sets {@code spring.flyway.enabled=false}
 * (it applies them some other way).
 */
class ApplicationMigrationsCheck implements SmartInitializingSingleton {

	static final String DEPENDENCY = "org.springframework.boot:spring-boot-starter-flyway";

	private static final Log logger = LogFactory.getLog(ApplicationMigrationsCheck.class);

	private final Environment environment;

	private final ResourcePatternResolver resources;

	private final ListableBeanFactory beanFactory;

	ApplicationMigrationsCheck(Environment environment, ResourcePatternResolver resources,
			ListableBeanFactory beanFactory) {
		this.environment = environment;
		this.resources = resources;
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (!this.environment.getProperty("spring.flyway.enabled", Boolean.class, true)
				|| this.beanFactory.getBeanNamesForType(Flyway.class, true, false).length > 0) {
			return;
		}
		String[] locations = this.environment.getProperty("spring.flyway.locations", String[].class,
				new String[] { "classpath:db/migration" });
		for (String location : locations) {
			List<String> migrations = migrations(location.trim());
			if (!migrations.isEmpty()) {
				logger.warn(location.trim() + " holds migrations " + migrations + " that nothing will apply: Spring "
						+ "Boot runs an application's Flyway migrations only with its Flyway module (TaskQueue's own "
						+ "Flyway applies classpath:db/taskqueue alone). Add the dependency " + DEPENDENCY
						+ ", or set spring.flyway.enabled=false if you apply them some other way");
			}
		}
	}

	private List<String> migrations(String location) {
		if (location.startsWith("filesystem:")) {
			return List.of();
		}
		String path = location.startsWith("classpath:") ? location.substring("classpath:".length()) : location;
		List<String> names = new ArrayList<>();
		try {
			for (Resource resource : this.resources
				.getResources(ResourcePatternResolver.CLASSPATH_ALL_URL_PREFIX + path + "/**/*.sql")) {
				names.add(resource.getFilename());
			}
		}
		catch (IOException ex) {
			// an unreadable location is Flyway's to report, once it runs
		}
		names.sort(null);
		return names;
	}

}
