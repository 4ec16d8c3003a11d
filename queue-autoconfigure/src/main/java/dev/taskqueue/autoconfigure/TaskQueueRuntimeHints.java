package dev.taskqueue.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * What TaskQueue itself reads by reflection or from the class path, for native images. The handlers' payload
 * types are registered per bean by {@code TaskHandlerBeanRegistrationAotProcessor}; the endpoint's responses by
 * {@code TaskQueueEndpointRuntimeHints}, as they exist only with the actuator.
 */
class TaskQueueRuntimeHints implements RuntimeHintsRegistrar {

	/** Mapped from a query's columns by {@code DataClassRowMapper}: its constructor is called by reflection. */
	static final String SCHEMA_COUNTS = "dev.taskqueue.autoconfigure.SchemaContents$Counts";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		// Flyway lists and reads the migrations from the class path at startup.
		for (MigrationLocations database : MigrationLocations.values()) {
			for (String location : database.locations()) {
				hints.resources().registerPattern(location.substring("classpath:".length()) + "/*");
			}
		}
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				ClassUtils.resolveClassName(SCHEMA_COUNTS, classLoader));
		// UnknownPropertyCheck walks the properties' getters to tell which names exist.
		registerPropertiesIntrospection(hints, TaskQueueProperties.class);
		registerPropertiesIntrospection(hints, DashboardProperties.class);
		registerPropertiesIntrospection(hints, HealthProperties.class);
	}

	/** Registers {@code type} and, through its getters, every group of properties it holds (map values too). */
	private static void registerPropertiesIntrospection(RuntimeHints hints, Class<?> type) {
		if (!type.getName().startsWith("dev.taskqueue.") || hints.reflection().getTypeHint(type) != null) {
			return;
		}
		hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
		for (Method getter : type.getMethods()) {
			if (getter.getParameterCount() > 0 || !getter.getName().startsWith("get")) {
				continue;
			}
			registerPropertiesIntrospection(hints, getter.getReturnType());
			if (getter.getGenericReturnType() instanceof ParameterizedType generic) {
				for (Type argument : generic.getActualTypeArguments()) {
					if (argument instanceof Class<?> group) {
						registerPropertiesIntrospection(hints, group);
					}
				}
			}
		}
	}

}
