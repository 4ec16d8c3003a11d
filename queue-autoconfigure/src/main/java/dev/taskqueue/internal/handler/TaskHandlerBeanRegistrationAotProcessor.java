package dev.taskqueue.internal.handler;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;

import dev.taskqueue.TaskHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

/**
 * Tells a native image what running the {@link TaskHandler @TaskHandler} methods of a bean takes by reflection:
 * the methods themselves, called by {@link TaskHandlerMethod#invoke}, and their payload types, which Jackson reads
 * on the worker and writes on the producer. Without the payload hints a native application would start and fail
 * on its first task.
 * <p>
 * Works from the bean's class as AOT processing sees it, as Spring's own {@code @EventListener} support does: a
 * handler on a bean whose {@code @Bean} method declares only an interface is not seen here.
 */
class TaskHandlerBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		List<Method> methods = List.copyOf(TaskHandlerMethods.find(beanClass).keySet());
		if (methods.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
			for (Method method : methods) {
				registerInvocation(reflection, beanClass, method);
				Type[] parameters = method.getGenericParameterTypes();
				if (parameters.length > 0) {
					bindings.registerReflectionHints(reflection, parameters[0]);
				}
			}
		};
	}

	/** The method, and its declaration on an interface: that is the one called on a JDK proxy. */
	private static void registerInvocation(ReflectionHints reflection, Class<?> beanClass, Method method) {
		reflection.registerMethod(method, ExecutableMode.INVOKE);
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
			Method declared = ClassUtils.getMethodIfAvailable(type, method.getName(), method.getParameterTypes());
			if (declared != null) {
				reflection.registerMethod(declared, ExecutableMode.INVOKE);
			}
		}
	}

}
