package dev.taskqueue.internal.dashboard;

import org.junit.jupiter.api.Test;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.tag;
import static org.assertj.core.api.Assertions.assertThat;

/** Everything that is not {@link Html} is escaped, in text and in attribute values. */
class HtmlTests {

	@Test
	void escapesTextAndAttributeValues() {
		assertThat(element("a", attrs("href", "/x?a=1&b=\"2\"", "title", "<'>"), "<script>alert('x')</script> & co")
			.toString()).isEqualTo("<a href=\"/x?a=1&amp;b=&quot;2&quot;\" title=\"&lt;&#39;&gt;\">"
					+ "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co</a>");
	}

	@Test
	void nestsHtmlAsItIsAndAnythingElseAsText() {
		assertThat(tag("td", tag("b", "1 < 2"), 42, null).toString()).isEqualTo("<td><b>1 &lt; 2</b>42</td>");
	}

	@Test
	void leavesOutNullAttributesAndWritesEmptyOnesWithoutValue() {
		assertThat(empty("input", "type", "checkbox", "checked", "", "name", null).toString())
			.isEqualTo("<input type=\"checkbox\" checked>");
	}

	@Test
	void leavesPlainTextAlone() {
		String text = "plain text, no markup";
		assertThat(Html.escape(text)).isSameAs(text);
	}

}
