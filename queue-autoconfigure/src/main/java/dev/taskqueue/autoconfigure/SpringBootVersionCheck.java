package dev.taskqueue.autoconfigure;

import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.internal.support.StartupFailure;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;

/**
 * Stops an application on a Spring Boot older than TaskQueue's with one line that says so. Without it, the
 * starter on a Spring Boot 3 application builds (Maven mixes Spring Boot 3 and 4 jars, Jackson 2 and 3) and
 * startup fails far away, with {@code 'jsonComponentModule' could not be registered}.
 * <p>
 * An {@link ApplicationContextInitializer} from {@code META-INF/spring.factories}, a key both Spring Boot 3 and 4
 * read: it runs before the context refreshes, so before any auto-configuration is loaded, and inside
 * {@code SpringApplication}'s error handling, so the failure is reported by {@code StartupFailureAnalyzer}. It
 * must load on Spring Boot 3, so it uses only types both versions have.
 */
class SpringBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext>, Ordered {

	/** The oldest Spring Boot TaskQueue runs on: the one it is built against. Raise with the parent's version. */
	static final int REQUIRED_MAJOR = 4;

	static final int REQUIRED_MINOR = 1;

	private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

	private final Supplier<@Nullable String> bootVersion;

	SpringBootVersionCheck() {
		this(SpringBootVersion::getVersion);
	}

	/** @param bootVersion the running Spring Boot's version; the tests pretend an older one */
	SpringBootVersionCheck(Supplier<@Nullable String> bootVersion) {
		this.bootVersion = bootVersion;
	}

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		String found = this.bootVersion.get();
		if (!isSupported(found)) {
			throw new StartupFailure(problem(taskQueueVersion(), found),
					"Upgrade the application to Spring Boot " + REQUIRED_MAJOR + "." + REQUIRED_MINOR + " or later "
							+ "(the version of its spring-boot-starter-parent or spring-boot-dependencies). TaskQueue "
							+ "is built on it: on an older Spring Boot the build mixes jars of both versions.");
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE; // before other initializers, which may trip over the mixed jars first
	}

	/**
	 * Whether TaskQueue runs on Spring Boot {@code version}. A version that is missing or not
	 * {@code major.minor...} does not stop the application: a repackaged or shaded Spring Boot may not know its
	 * version, and a check that cannot tell must not be the reason an application does not start.
	 */
	static boolean isSupported(@Nullable String version) {
		Matcher matcher = (version != null) ? MAJOR_MINOR.matcher(version.trim()) : null;
		if (matcher == null || !matcher.find()) {
			return true;
		}
		try {
			int major = Integer.parseInt(matcher.group(1));
			int minor = Integer.parseInt(matcher.group(2));
			return major > REQUIRED_MAJOR || (major == REQUIRED_MAJOR && minor >= REQUIRED_MINOR);
		}
		catch (NumberFormatException ex) {
			return true; // more digits than an int: not a version we can judge
		}
	}

	/** The one line that says it: {@code TaskQueue 0.1.0 needs Spring Boot 4.1 or later; found Spring Boot 3.5.7}. */
	static String problem(@Nullable String taskQueueVersion, @Nullable String found) {
		return "TaskQueue" + ((taskQueueVersion != null) ? " " + taskQueueVersion : "") + " needs Spring Boot "
				+ REQUIRED_MAJOR + "." + REQUIRED_MINOR + " or later; found Spring Boot " + found;
	}

	/** From the jar's manifest ({@code Implementation-Version}); {@code null} from classes not in a jar. */
	static @Nullable String taskQueueVersion() {
		return SpringBootVersionCheck.class.getPackage().getImplementationVersion();
	}

}
