package dev.taskqueue.internal.dashboard;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * What keeps the dashboard's actions from being posted by anyone but its own pages, whatever the class path: a
 * request a browser marks as cross-site ({@code Sec-Fetch-Site}) or from another origin ({@code Origin}) is refused,
 * and every form carries a token of TaskQueue's own, derived from a random key kept in the HTTP session, which a page
 * of another site cannot read: checked whatever the class path, Spring Security's CSRF protection included (which
 * checks its own token besides, where it is not told to ignore the dashboard). The confirmation of an action that cannot be
 * undone carries a token of its own too, minted by the confirmation page for that action only, so that posting
 * {@code confirm=yes} does not skip the page.
 */
final class ActionGuard implements HandlerFilterFunction<ServerResponse, ServerResponse> {

	/** The form field of TaskQueue's own token, on every form of an action. */
	static final String TOKEN_FIELD = "_taskqueue_csrf";

	/** The form field that confirms an action: the token the confirmation page minted for it. */
	static final String CONFIRM_FIELD = "confirm";

	private static final String KEY_ATTRIBUTE = ActionGuard.class.getName() + ".key";

	private static final SecureRandom random = new SecureRandom();

	private final DashboardPages pages;

	ActionGuard(DashboardPages pages) {
		this.pages = pages;
	}

	@Override
	public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		String refusal = refusal(request.servletRequest());
		if (refusal != null) {
			return refuse(request, refusal);
		}
		return next.handle(request);
	}

	/** Why an action posted with {@code request} is refused, or {@code null} if it may run. */
	static @Nullable String refusal(HttpServletRequest request) {
		// Browsers send Sec-Fetch-Site on every request; a client without it (curl, a test) is not a browser that a
		// page of another site could drive.
		String site = request.getHeader("Sec-Fetch-Site");
		if (site != null && !site.equals("same-origin") && !site.equals("none")) {
			return "The action was posted from another site (Sec-Fetch-Site: " + site + ").";
		}
		// Origin only where the browser said nothing of the site: Sec-Fetch-Site is computed from the URL the browser
		// used, while the scheme, host and port this server sees differ behind a proxy that terminates TLS.
		String origin = request.getHeader("Origin");
		if (site == null && origin != null && !sameOrigin(origin, request)) {
			return "The action was posted from another origin (" + origin + ").";
		}
		// TaskQueue's token is checked with or without Spring Security: its CsrfFilter puts its token in the request
		// also on paths it ignores (csrf.ignoringRequestMatchers("/taskqueue/**")), where it checks nothing.
		String expected = token(request, false);
		String posted = request.getParameter(TOKEN_FIELD);
		if (expected == null || posted == null || !equal(expected, posted)) {
			return "The action was posted without the dashboard's token: act from the dashboard's own pages "
					+ "(reload the page if your session has ended).";
		}
		return null;
	}

	/** Whether the {@code Origin} header names the scheme, host and port the request was sent to. */
	private static boolean sameOrigin(String origin, HttpServletRequest request) {
		try {
			URI uri = URI.create(origin);
			if (uri.getScheme() == null || uri.getHost() == null) {
				return false; // "null": a sandboxed frame, a data: URL, a redirect from another site
			}
			int port = (uri.getPort() != -1) ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
			return uri.getScheme().equalsIgnoreCase(request.getScheme())
					&& uri.getHost().toLowerCase(Locale.ROOT).equals(request.getServerName().toLowerCase(Locale.ROOT))
					&& port == request.getServerPort();
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	ServerResponse refuse(ServerRequest request, String reason) {
		return DashboardPages.html(HttpStatus.FORBIDDEN,
				MessagePage.error(this.pages.context(request), "Refused", reason + " Nothing was changed."));
	}

	/**
	 * TaskQueue's token for the forms of the session of {@code request}, or {@code null} if it has no session and
	 * {@code create} is false.
	 */
	static @Nullable String token(HttpServletRequest request, boolean create) {
		byte[] key = key(request, create);
		return (key != null) ? mac(key, "csrf") : null;
	}

	/**
	 * The token that confirms {@code action} (the action's path under the dashboard and its hidden fields), for the
	 * session of {@code request}.
	 */
	static String confirmToken(HttpServletRequest request, String action, String... hidden) {
		byte[] key = key(request, true);
		return mac(key, "confirm " + action + " " + String.join("\u0000", hidden));
	}

	/** Whether {@code posted} is the token the confirmation page minted for {@code action}. */
	static boolean confirms(HttpServletRequest request, String posted, String action, String... hidden) {
		byte[] key = key(request, false);
		return key != null && equal(mac(key, "confirm " + action + " " + String.join("\u0000", hidden)), posted);
	}

	private static byte @Nullable [] key(HttpServletRequest request, boolean create) {
		HttpSession session = request.getSession(create);
		if (session == null) {
			return null;
		}
		Object key = session.getAttribute(KEY_ATTRIBUTE);
		if (key instanceof byte[] bytes) {
			return bytes;
		}
		if (!create) {
			return null;
		}
		byte[] bytes = new byte[32];
		random.nextBytes(bytes);
		session.setAttribute(KEY_ATTRIBUTE, bytes);
		return bytes;
	}

	private static String mac(byte[] key, String message) {
		try {
			Mac mac = Mac.getInstance("HmacSHA256");
			mac.init(new SecretKeySpec(key, "HmacSHA256"));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is part of every Java runtime", ex);
		}
	}

	/** Compares in constant time, so that the time taken tells nothing of the token. */
	private static boolean equal(String expected, String posted) {
		return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), posted.getBytes(StandardCharsets.UTF_8));
	}

}
