package dev.taskqueue.internal.operations;

import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * Writes the audit log's entries, naming who acts: the actor the dashboard or the actuator endpoint bound to the
 * thread for the request ({@link ActingAs}), else the application's own code ("api"), by
 * the name of Spring Security's authenticated principal where there is one, else "application".
 */
final class AuditLog {

	/** Who acts when code of the application calls an operation with no principal: a scheduled job, a handler. */
	static final String APPLICATION = "application";

	/** How an operation called by the application's own code is reached. */
	static final String API = "api";

	private static final boolean SPRING_SECURITY = ClassUtils.isPresent(
			"org.springframework.security.core.context.SecurityContextHolder", AuditLog.class.getClassLoader());

	private static final ThreadLocal<Actor> bound = new ThreadLocal<>();

	private final AuditRepository repository;

	AuditLog(AuditRepository repository) {
		this.repository = repository;
	}

	/** Adds an entry for {@code action} on {@code target}, by whoever acts on this thread. */
	void record(String action, String target, long rows) {
		Actor actor = actor();
		this.repository.record(actor.name(), actor.via(), action, target, rows);
	}

	/** Who acts on this thread. */
	static Actor actor() {
		Actor actor = bound.get();
		if (actor != null) {
			return actor;
		}
		String principal = principal();
		return new Actor((principal != null) ? principal : APPLICATION, API);
	}

	/** The name of Spring Security's authenticated principal of this thread, or {@code null}. */
	static @Nullable String principal() {
		return SPRING_SECURITY ? SecurityPrincipal.name() : null;
	}

	/** Binds {@code actor} to this thread; returns the one it replaces, for {@link #restore}. */
	static @Nullable Actor bind(Actor actor) {
		Actor previous = bound.get();
		bound.set(actor);
		return previous;
	}

	static void restore(@Nullable Actor previous) {
		if (previous != null) {
			bound.set(previous);
		}
		else {
			bound.remove();
		}
	}

	/**
	 * Who acts, and how.
	 *
	 * @param name the principal's name, {@code anonymous} or {@code application}
	 * @param via {@code dashboard}, {@code actuator} or {@code api}
	 */
	record Actor(String name, String via) {
	}

	/** Spring Security's principal, in a class of its own: loaded only where Spring Security is on the class path. */
	private static final class SecurityPrincipal {

		static @Nullable String name() {
			Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
			if (authentication == null || !authentication.isAuthenticated()
					|| authentication instanceof AnonymousAuthenticationToken) {
				return null;
			}
			return authentication.getName();
		}

	}

}
