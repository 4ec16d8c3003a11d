package dev.taskqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.taskqueue.internal.support.StartupFailure;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Finds properties under {@code taskqueue} that TaskQueue does not have, such as
 * {@code taskqueue.queues.emails.concurency}, which Spring Boot would otherwise ignore without a word. Names are
 * compared as Spring Boot binds them, so {@code max-attempts}, {@code maxAttempts} and {@code MAX_ATTEMPTS} are
 * all the same property.
 * <p>
 * Environment variables are not checked, as Spring Boot's own strict binding does not check them either: platforms
 * set variables of their own that look like ours, such as {@code TASKQUEUE_WORKER_SERVICE_HOST} on Kubernetes for
 * a service named {@code taskqueue-worker}. Nor are JVM system properties fatal: build tools hand their own to the
 * JVM (Surefire passes Maven's {@code -Dtaskqueue.version=...} to the tests), so a property set only there is
 * said in one WARN line instead.
 * <p>
 * A {@link BeanFactoryPostProcessor}, so that it runs before any bean is created, and so before any migration.
 */
final class UnknownPropertyCheck implements BeanFactoryPostProcessor, EnvironmentAware {

	private static final Log logger = LogFactory.getLog(UnknownPropertyCheck.class);

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("taskqueue");

	@SuppressWarnings("NullAway.Init") // set by setEnvironment, before postProcessBeanFactory
	private Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		try {
			String ignored = requireKnown(this.environment);
			if (ignored != null) {
				logger.warn(ignored);
			}
		}
		catch (IllegalArgumentException ex) {
			throw new StartupFailure(String.valueOf(ex.getMessage()), "Correct the name of each property above, or "
					+ "remove it. TaskQueue's properties are listed in docs/configuration.md; an IDE completes "
					+ "them from the starter's configuration metadata.", ex);
		}
	}

	/**
	 * Fails if {@code environment} sets a property under {@code taskqueue} that {@link TaskQueueProperties} does
	 * not have. In the JVM's system properties, only a misspelt setting of one of TaskQueue's groups
	 * ({@code taskqueue.worker.concurency}) fails; a name outside them ({@code taskqueue.version}, which Maven's
	 * {@code -D} hands to tests) is said in one line.
	 * @return one line naming the unknown properties set only as JVM system properties, {@code null} if none
	 * @throws IllegalArgumentException naming each unknown property, where it was set, and the valid ones
	 */
	static @Nullable String requireKnown(Environment environment) {
		Map<String, String> unknown = new TreeMap<>();
		Map<String, String> systemOnly = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable
					&& !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)) {
				boolean systemProperties = isSystemProperties(source);
				iterable.filter(ROOT::isAncestorOf).forEach((name) -> {
					String problem = problem(name);
					if (problem != null) {
						// A build's own property only shares the prefix (taskqueue.version); a misspelt setting of
						// one of TaskQueue's groups (taskqueue.worker.concurency) is a mistake wherever it is set.
						Map<String, String> found = (systemProperties && !inKnownGroup(name)) ? systemOnly : unknown;
						found.putIfAbsent(name.toString(), origin(source.getConfigurationProperty(name)) + problem);
					}
				});
			}
		}
		if (!unknown.isEmpty()) {
			throw new IllegalArgumentException(joined(unknown));
		}
		systemOnly.keySet().removeAll(unknown.keySet());
		return systemOnly.isEmpty() ? null : "Ignoring JVM system properties that are not TaskQueue's: "
				+ joined(systemOnly) + ". A build tool may pass its own to the JVM (Maven's -D does to tests); set "
				+ "TaskQueue's properties in the application's configuration, where a misspelt one stops startup";
	}

	/** Whether {@code name}'s first part under {@code taskqueue} is one of TaskQueue's, such as {@code worker}. */
	private static boolean inKnownGroup(ConfigurationPropertyName name) {
		return name.getNumberOfElements() > 2
				&& property(TaskQueueProperties.class, name.getElement(1, Form.UNIFORM)) != null;
	}

	/**
	 * The JVM's system properties. Only the standard source: {@code @SpringBootTest(properties)} and the command
	 * line's arguments are sources of their own, and checked.
	 */
	private static boolean isSystemProperties(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> underlying
				&& StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(underlying.getName());
	}

	private static String joined(Map<String, String> problems) {
		return problems.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + entry.getValue())
			.collect(Collectors.joining("; "));
	}

	/** What is wrong with {@code name}, {@code null} if it names a TaskQueue property. */
	private static @Nullable String problem(ConfigurationPropertyName name) {
		Class<?> type = TaskQueueProperties.class;
		String group = "taskqueue";
		for (int i = 1; i < name.getNumberOfElements(); i++) {
			PropertyDescriptor property = property(type, name.getElement(i, Form.UNIFORM));
			if (property == null) {
				return " is not a TaskQueue property; " + group + " has " + String.join(", ", properties(type));
			}
			group = group + "." + dashed(property.getName());
			if (Map.class.isAssignableFrom(property.getPropertyType())) {
				i++; // the key, such as a queue name
				group = group + ".<name>";
				type = ResolvableType.forMethodReturnType(property.getReadMethod()).asMap().resolveGeneric(1);
				if (type == null || !isGroup(type)) {
					return null; // a map of values
				}
			}
			else if (isGroup(property.getPropertyType())) {
				type = property.getPropertyType();
			}
			else {
				return null; // a value
			}
		}
		return null;
	}

	/** A group of TaskQueue properties: a *Properties class next to TaskQueueProperties, or a class inside one. */
	private static boolean isGroup(Class<?> type) {
		Class<?> declaring = type.getDeclaringClass();
		return type.getPackage() == TaskQueueProperties.class.getPackage()
				&& (type.getSimpleName().endsWith("Properties") || (declaring != null && isGroup(declaring)));
	}

	private static @Nullable PropertyDescriptor property(Class<?> type, String uniformName) {
		return descriptors(type).filter((property) -> property.getName().toLowerCase(Locale.ROOT).equals(uniformName))
			.findFirst()
			.orElse(null);
	}

	private static Set<String> properties(Class<?> type) {
		return descriptors(type).map((property) -> dashed(property.getName()))
			.collect(Collectors.toCollection(TreeSet::new));
	}

	/** The properties of a properties class, as binding sees them. */
	private static Stream<PropertyDescriptor> descriptors(Class<?> type) {
		return Arrays.stream(BeanUtils.getPropertyDescriptors(type))
			.filter((property) -> property.getReadMethod() != null && !"class".equals(property.getName()));
	}

	private static String dashed(String camelCase) {
		return camelCase.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

	private static String origin(@Nullable ConfigurationProperty property) {
		return (property != null && property.getOrigin() != null) ? " (set in " + property.getOrigin() + ")" : "";
	}

}
