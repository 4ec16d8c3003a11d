package dev.taskqueue.internal.dashboard;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * What every page of one request needs besides its data: where the dashboard lives, whether it may offer actions,
 * the message of the action just done, and the CSRF tokens its forms carry: TaskQueue's own (see ActionGuard),
 * checked on every action whatever the class path, and the one Spring Security gave the request, if any, for
 * Spring Security's own check.
 *
 * @param base the dashboard's path, with the servlet context path
 * @param readOnly whether actions are left out: the dashboard is read-only, or this user may only view
 * @param viewOnly whether actions are left out only because this user may only view (DashboardAccess)
 * @param flash what the last action did, or {@code null}
 * @param csrfName the form field of Spring Security's CSRF token, or {@code null} without one
 * @param csrfToken Spring Security's token
 * @param ownToken TaskQueue's token, {@code null} on a read-only dashboard (it has no form to carry it)
 * @param self the path of the page asked for, with the servlet context path
 * @param query the page's query string as sent, or {@code null}
 * @param clock the database clock's now, read at most once per page, when a page first shows a time
 */
record PageContext(String base, boolean readOnly, boolean viewOnly, @Nullable String flash, @Nullable String csrfName,
		@Nullable String csrfToken, @Nullable String ownToken, String self, @Nullable String query,
		Supplier<Instant> clock) {

	/** The request attribute under which Spring Security's {@code CsrfFilter} puts the token. */
	static final String CSRF_ATTRIBUTE = "org.springframework.security.web.csrf.CsrfToken";

	static PageContext of(HttpServletRequest request, String path, boolean readOnly, boolean viewOnly,
			@Nullable String flash, Supplier<Instant> clock) {
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
		return new PageContext(request.getContextPath() + path, readOnly, viewOnly, flash, name, value, own,
				request.getRequestURI(), request.getQueryString(), SingletonSupplier.of(clock));
	}

	/** Now, on the database clock: what the relative times of the page are counted from. */
	Instant now() {
		return this.clock.get();
	}

	/**
	 * This page again, with its query but without the parameter {@code name}, and with {@code name=value} added
	 * unless {@code value} is {@code null}.
	 */
	String selfWith(String name, @Nullable String value) {
		List<String> parameters = new ArrayList<>();
		if (this.query != null) {
			for (String parameter : this.query.split("&")) {
				if (!parameter.isEmpty() && !parameter.equals(name) && !parameter.startsWith(name + "=")) {
					parameters.add(parameter);
				}
			}
		}
		if (value != null) {
			parameters.add(name + "=" + value);
		}
		return parameters.isEmpty() ? this.self : this.self + "?" + String.join("&", parameters);
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
