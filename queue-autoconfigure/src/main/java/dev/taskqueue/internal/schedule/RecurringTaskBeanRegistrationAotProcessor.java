package dev.taskqueue.internal.schedule;

import java.lang.reflect.Method;
import java.util.List;

import dev.taskqueue.RecurringTask;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Tells a native image that the {@link RecurringTask @RecurringTask} methods of a bean are called by reflection,
 * through {@link RecurringMethod#run}.
 */
class RecurringTaskBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		List<Method> methods = List.copyOf(MethodIntrospector
			.selectMethods(beanClass, (MethodIntrospector.MetadataLookup<RecurringTask>) (method) -> AnnotatedElementUtils
				.findMergedAnnotation(method, RecurringTask.class))
			.keySet());
		if (methods.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			reflection.registerMethod(RecurringMethod.RUN, ExecutableMode.INVOKE);
			for (Method method : methods) {
				reflection.registerMethod(method, ExecutableMode.INVOKE);
				for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
					Method declared = ClassUtils.getMethodIfAvailable(type, method.getName(),
							method.getParameterTypes());
					if (declared != null) {
						reflection.registerMethod(declared, ExecutableMode.INVOKE);
					}
				}
			}
		};
	}

}
