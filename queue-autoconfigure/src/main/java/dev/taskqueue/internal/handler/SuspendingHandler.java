package dev.taskqueue.internal.handler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import kotlin.coroutines.Continuation;
import kotlinx.coroutines.BuildersKt;
import kotlinx.coroutines.CoroutineName;
import org.jspecify.annotations.Nullable;

/**
 * Calls a Kotlin {@code suspend fun} handler: in a coroutine of its own, run by {@code runBlocking} on the handler
 * thread, so that what the handler finds on its thread (the task's transaction, its connection, the observation)
 * is there before and after every suspension, as long as the handler does not move to another dispatcher.
 * <p>
 * The worker stops a handler by interrupting its thread (timeout, shutdown). {@code runBlocking} (kotlinx-coroutines
 * 1.10 and later) turns the interrupt into the coroutine's cancellation and returns only once the cancelled coroutine
 * has ended on this thread, its {@code finally} blocks and {@code NonCancellable} sections included, so that nothing
 * of the handler runs after its attempt has ended.
 * <p>
 * Loaded only when a suspending handler runs: the registry refuses one when kotlinx-coroutines is missing.
 */
final class SuspendingHandler {

	private SuspendingHandler() {
	}

	/**
	 * Runs {@code method} on {@code bean} with {@code args} and a continuation, until the coroutine has completed.
	 * What the handler throws is thrown as it is.
	 * @return what the coroutine returned, {@code null} for {@code Unit}
	 */
	static @Nullable Object invoke(String queue, Method method, Object bean, Object... args) throws Exception {
		Object returned = BuildersKt.runBlocking(new CoroutineName("taskqueue:" + queue),
				(scope, continuation) -> call(method, bean, args, continuation));
		return (returned instanceof kotlin.Unit) ? null : returned;
	}

	private static @Nullable Object call(Method method, Object bean, Object[] args, Continuation<?> continuation) {
		Object[] withContinuation = Arrays.copyOf(args, args.length + 1);
		withContinuation[args.length] = continuation;
		try {
			return method.invoke(bean, withContinuation);
		}
		catch (InvocationTargetException ex) {
			throw SuspendingHandler.<RuntimeException>sneaky(ex.getTargetException());
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Kotlin has no checked exceptions: the handler's exception travels through the coroutine as it is. */
	@SuppressWarnings("unchecked")
	private static <T extends Throwable> T sneaky(Throwable failure) throws T {
		throw (T) failure;
	}

}
