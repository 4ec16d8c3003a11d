package dev.taskqueue.internal.schedule;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;

import dev.taskqueue.TaskContext;

import org.springframework.util.ReflectionUtils;

/**
 * The handler of a {@code @RecurringTask} method's queue: ignores the payload and calls the method, with the task's
 * context when it takes one.
 */
final class RecurringMethod {

	static final Method RUN;

	static {
		try {
			RUN = RecurringMethod.class.getMethod("run", Object.class, TaskContext.class);
			ReflectionUtils.makeAccessible(RUN); // called from the handler package, and this class is not public
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private final Object bean;

	private final Method method;

	private final boolean takesContext;

	RecurringMethod(Object bean, Method method) {
		this.bean = bean;
		this.method = method;
		this.takesContext = method.getParameterCount() == 1;
	}

	/** Calls the method; whatever it throws is thrown as it is. */
	public void run(Object payload, TaskContext context) throws Exception {
		try {
			if (this.takesContext) {
				this.method.invoke(this.bean, context);
			}
			else {
				this.method.invoke(this.bean);
			}
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			if (target instanceof Exception exception) {
				throw exception;
			}
			if (target instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(target);
		}
	}

	@Override
	public String toString() {
		return "@RecurringTask " + this.method.getDeclaringClass().getSimpleName() + "." + this.method.getName();
	}

}
