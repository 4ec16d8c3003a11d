package dev.taskqueue.internal.dashboard;

import java.security.Principal;

import dev.taskqueue.internal.operations.ActingAs;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Who may see the dashboard and who may act on it. Where the application has Spring Security's web filter chain, a
 * user's authorities decide: the view authority lets one see every page, the operate authority lets one act as well
 * (and see); anyone else, signed in or not, is refused with 403. Without it, everyone who reaches the dashboard may
 * do what the dashboard allows (read-only unless {@code taskqueue.dashboard.read-only=false}), as before roles were.
 * Every action runs with its actor bound for the audit log ({@link #acting}): the principal's name, or
 * {@code anonymous}.
 */
final class DashboardAccess {

	/** What a request may do. */
	enum Level {

		/** Nothing: not even see the pages. */
		NONE,

		/** See the pages, act on nothing. */
		VIEW,

		/** See the pages and act, where the dashboard is not read-only. */
		OPERATE

	}

	/** Who acts where the request has no principal: a dashboard without authentication. */
	static final String ANONYMOUS = "anonymous";

	private final @Nullable String viewAuthority;

	private final @Nullable String operateAuthority;

	private DashboardAccess(@Nullable String viewAuthority, @Nullable String operateAuthority) {
		this.viewAuthority = viewAuthority;
		this.operateAuthority = operateAuthority;
	}

	/** Every request may do what the dashboard allows: no Spring Security to tell users apart. */
	static DashboardAccess open() {
		return new DashboardAccess(null, null);
	}

	/** A request may do what its Spring Security authorities allow. */
	static DashboardAccess byAuthorities(String viewAuthority, String operateAuthority) {
		return new DashboardAccess(viewAuthority, operateAuthority);
	}

	/** What {@code request} may do. */
	Level level(HttpServletRequest request) {
		if (this.viewAuthority == null || this.operateAuthority == null) {
			return Level.OPERATE;
		}
		return Authorities.level(this.viewAuthority, this.operateAuthority);
	}

	/**
	 * Why {@code request} is refused, or {@code null} if it may go on: a page needs the view (or operate)
	 * authority, an action (any POST) the operate authority.
	 */
	@Nullable String refusal(ServerRequest request) {
		Level level = level(request.servletRequest());
		if (level == Level.NONE) {
			return "Seeing the dashboard needs the authority " + this.viewAuthority
					+ " (taskqueue.dashboard.view-authority), or " + this.operateAuthority
					+ " (taskqueue.dashboard.operate-authority) to act as well.";
		}
		if (request.method() == HttpMethod.POST && level != Level.OPERATE) {
			return "Acting on the dashboard needs the authority " + this.operateAuthority
					+ " (taskqueue.dashboard.operate-authority): yours let you see it only. Nothing was changed.";
		}
		return null;
	}

	/** Names the user of {@code request} in the audit log entries of what the thread does until closed. */
	static ActingAs acting(HttpServletRequest request) {
		return ActingAs.actor(actor(request), "dashboard");
	}

	/** The principal's name, through the Servlet API (Spring Security's included), or {@code anonymous}. */
	static String actor(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		return (principal != null && principal.getName() != null) ? principal.getName() : ANONYMOUS;
	}

	/** Spring Security's authorities, in a class of its own: loaded only where Spring Security is. */
	private static final class Authorities {

		static Level level(String view, String operate) {
			Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
			if (authentication == null || !authentication.isAuthenticated()) {
				return Level.NONE;
			}
			boolean views = false;
			for (GrantedAuthority authority : authentication.getAuthorities()) {
				if (operate.equals(authority.getAuthority())) {
					return Level.OPERATE;
				}
				views |= view.equals(authority.getAuthority());
			}
			return views ? Level.VIEW : Level.NONE;
		}

	}

}
