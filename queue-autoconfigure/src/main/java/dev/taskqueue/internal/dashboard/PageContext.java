package dev.taskqueue.internal.dashboard;

import java.lang.reflect.Method;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What every page of one request needs besides its data: where the dashboard lives, whether it may offer actions,
 * the message of the action just done, and the CSRF tokens its forms carry: TaskQueue's own (see ActionGuard),
 * checked on every action whatever the class path, and the one Spring Security gave the request, if any, for
 * Spring Security's own check.
 *
 * @param base the dashboard's path, with the servlet context path
 * @param readOnly whether actions are left out
 * @param flash what the last action did, or {@code null}
 * @param csrfName the form field of Spring Security's CSRF token, or {@code null} without one
 * @param csrfToken Spring Security's token
 * @param ownToken TaskQueue's token, {@code null} on a read-only dashboard (it has no form to carry it)
 */
record PageContext(String base, boolean readOnly, @Nullable String flash, @Nullable String csrfName,
		@Nullable String csrfToken, @Nullable String ownToken) {

	/** The request attribute under which Spring Security's {@code CsrfFilter} puts the token. */
	static final String CSRF_ATTRIBUTE = "org.springframework.security.web.csrf.CsrfToken";

	static PageContext of(HttpServletRequest request, String path, boolean readOnly, @Nullable String flash) {
		Object token = request.getAttribute(CSRF_ATTRIBUTE);
		String name = null;
		String value = null;
		if (token != null) {
			// Read by name: Spring Security is not a dependency of TaskQueue, only of some applications.
			name = call(token, "getParameterName");
			value = call(token, "getToken");
		}
		// TaskQueue's own token too, even with Spring Security's: its CsrfFilter puts the token in the request also
		// on paths it was told to ignore, so the attribute alone does not say the action was checked.
		String own = readOnly ? null : ActionGuard.token(request, true);
		return new PageContext(request.getContextPath() + path, readOnly, flash, name, value, own);
	}

	/** A path under the dashboard, such as {@code "/dead"}. */
	String url(String path) {
		return this.base + path;
	}

	/** Calls {@code method} through a public interface: the token's own class is often private. */
	private static @Nullable String call(Object target, String method) {
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(target.getClass())) {
			try {
				Method getter = type.getMethod(method);
				Object value = getter.invoke(target);
				return (value != null) ? value.toString() : null;
			}
			catch (NoSuchMethodException ex) {
				// another interface may have it
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				return null;
			}
		}
		return null;
	}

}
