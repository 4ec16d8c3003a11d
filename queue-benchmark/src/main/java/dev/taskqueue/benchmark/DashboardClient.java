package dev.taskqueue.benchmark;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Requests dashboard pages over HTTP, as a browser would, times them, and checks each answer for what its page must
 * show, so that a page that answers fast because it shows nothing fails the workload instead.
 */
final class DashboardClient {

	private static final Pattern ID = Pattern.compile("class=\"id\">([0-9a-f-]{36})<");

	private static final Pattern NEXT = Pattern.compile("href=\"([^\"]+)\" rel=\"next\"");

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final String origin;

	DashboardClient(int port) {
		this.origin = "http://localhost:" + port;
	}

	/** Requests {@code page} and checks the answer; returns how long it took, in nanoseconds. */
	long get(Page page) {
		long start = System.nanoTime();
		String body = body(page);
		long took = System.nanoTime() - start;
		List<String> ids = new ArrayList<>();
		Matcher id = ID.matcher(body);
		while (id.find()) {
			ids.add(id.group(1));
		}
		if (ids.size() < page.ids() || !body.contains(page.shows())) {
			throw new IllegalStateException(page.name() + " (" + page.path() + ") shows " + ids.size()
					+ " tasks, fewer than " + page.ids() + ", or not '" + page.shows() + "'");
		}
		return took;
	}

	/** The page that {@code page}'s own "next" link leads to, which must show {@code ids} tasks at least. */
	Page next(Page page, String name, int ids) {
		Matcher next = NEXT.matcher(body(page));
		if (!next.find()) {
			throw new IllegalStateException(page.name() + " (" + page.path() + ") has no next page");
		}
		return new Page(name, next.group(1).replace("&amp;", "&"), ids, page.shows());
	}

	private String body(Page page) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.origin + page.path())).GET().build();
		try {
			HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException(page.name() + " (" + page.path() + ") answered "
						+ response.statusCode() + ": " + response.body());
			}
			return response.body();
		}
		catch (IOException ex) {
			throw new IllegalStateException(page.name() + " (" + page.path() + ") failed: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * One page of the dashboard.
	 *
	 * @param name its name in the results
	 * @param path its path and query, as a link has it
	 * @param ids how many task ids it must show at least
	 * @param shows a text it must show
	 */
	record Page(String name, String path, int ids, String shows) {
	}

}
