package dev.taskqueue.internal.dashboard;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A browser without a browser: keeps cookies (the session that carries the message of an action), does not follow
 * redirects by itself so that tests see them, and posts forms.
 */
final class DashboardHttp {

	private final HttpClient client = HttpClient.newBuilder()
		.cookieHandler(new CookieManager())
		.followRedirects(HttpClient.Redirect.NEVER)
		.build();

	private final String origin;

	private final String authorization;

	DashboardHttp(int port) {
		this(port, null, null);
	}

	/** Signs every request in with HTTP basic authentication as {@code user}, when not {@code null}. */
	DashboardHttp(int port, String user, String password) {
		this.origin = "http://localhost:" + port;
		this.authorization = (user != null) ? "Basic " + java.util.Base64.getEncoder()
			.encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)) : null;
	}

	HttpResponse<String> get(String path) {
		return send(HttpRequest.newBuilder(URI.create(this.origin + path)).GET().build());
	}

	/** Posts {@code form} (already URL-encoded, may be empty). */
	HttpResponse<String> post(String path, String form) {
		return send(HttpRequest.newBuilder(URI.create(this.origin + path))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build());
	}

	/** Posts {@code form} from another site, as a browser sends it when a page elsewhere submits a form to us. */
	HttpResponse<String> postCrossSite(String path, String form) {
		return send(HttpRequest.newBuilder(URI.create(this.origin + path))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Origin", "https://attacker.example")
			.header("Sec-Fetch-Site", "cross-site")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build());
	}

	/**
	 * TaskQueue's own form token (the dashboard without Spring Security's CSRF protection), read from the overview
	 * at {@code /taskqueue} as a browser's form carries it.
	 */
	String token() {
		List<String> tokens = all(get("/taskqueue").body(), "name=\"_taskqueue_csrf\" value=\"([^\"]+)\"");
		if (tokens.isEmpty()) {
			throw new IllegalStateException("The overview has no form with the dashboard's token");
		}
		return tokens.get(0);
	}

	/**
	 * Posts {@code form} with the dashboard's token, as its buttons do, from the same origin as a browser says.
	 */
	HttpResponse<String> act(String path, String form) {
		String body = "_taskqueue_csrf=" + token() + (form.isEmpty() ? "" : "&" + form);
		return send(HttpRequest.newBuilder(URI.create(this.origin + path))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Origin", this.origin)
			.header("Sec-Fetch-Site", "same-origin")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build());
	}

	/**
	 * Posts an action that asks for confirmation, then posts its confirmation page's form (every hidden field
	 * of it), as a person clicking its button does; returns the answer to that.
	 */
	HttpResponse<String> confirm(String path, String form) {
		HttpResponse<String> asked = act(path, form);
		if (asked.statusCode() != 200 || !asked.body().contains("name=\"confirm\"")) {
			throw new IllegalStateException("No confirmation page for " + path + ": " + asked.statusCode());
		}
		String page = asked.body();
		String action = all(page, "<form method=\"post\" action=\"([^\"]+)\" class=\"confirm\"").get(0);
		return postHiddenFields(page.substring(page.indexOf("class=\"confirm\"")), action);
	}

	/**
	 * Posts the form of {@code page} whose action is {@code action} (the path it posts to), with every hidden field
	 * it holds (the tokens included), as clicking its button does in a browser of the same origin.
	 */
	HttpResponse<String> submit(String page, String action) {
		Matcher form = Pattern.compile("<form method=\"post\" action=\"" + Pattern.quote(action) + "\"[^>]*>(.*?)</form>",
				Pattern.DOTALL).matcher(page);
		if (!form.find()) {
			throw new IllegalStateException("No form posts to " + action);
		}
		return postHiddenFields(form.group(1), action);
	}

	/** Posts every hidden field of {@code form} to {@code action}, from a page of the same origin. */
	private HttpResponse<String> postHiddenFields(String form, String action) {
		Matcher field = Pattern.compile("<input type=\"hidden\" name=\"([^\"]+)\" value=\"([^\"]*)\"")
			.matcher(form);
		List<String> fields = new ArrayList<>();
		while (field.find()) {
			fields.add(encode(unescape(field.group(1))) + "=" + encode(unescape(field.group(2))));
		}
		return send(HttpRequest.newBuilder(URI.create(this.origin + unescape(action)))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Origin", this.origin)
			.header("Sec-Fetch-Site", "same-origin")
			.POST(HttpRequest.BodyPublishers.ofString(String.join("&", fields)))
			.build());
	}

	/** Sends a request of {@code method} with no body, as a script calls the actuator endpoint. */
	HttpResponse<String> send(String method, String path) {
		return send(HttpRequest.newBuilder(URI.create(this.origin + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build());
	}

	private static String encode(String value) {
		return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
	}

	private static String unescape(String html) {
		return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
			.replace("&amp;", "&");
	}

	/** Follows the redirect {@code response} answered with, as a browser would after a POST. */
	HttpResponse<String> follow(HttpResponse<String> response) {
		String location = response.headers().firstValue("Location").orElseThrow();
		return get(URI.create(location).isAbsolute() ? URI.create(location).getRawPath()
				+ ((URI.create(location).getRawQuery() != null) ? "?" + URI.create(location).getRawQuery() : "")
				: location);
	}

	private HttpResponse<String> send(HttpRequest request) {
		if (this.authorization != null) {
			request = HttpRequest.newBuilder(request, (name, value) -> true)
				.header("Authorization", this.authorization)
				.build();
		}
		try {
			return this.client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Every match of {@code regex}'s first group in {@code html}, in order. */
	static List<String> all(String html, String regex) {
		List<String> found = new ArrayList<>();
		Matcher matcher = Pattern.compile(regex).matcher(html);
		while (matcher.find()) {
			found.add(matcher.group(1));
		}
		return found;
	}

	/** The ids of the task links of a page, in order, once each. */
	static List<String> taskIds(String html) {
		return all(html, "href=\"[^\"]*/tasks/([0-9a-f-]{36})\" class=\"id\"");
	}

}
