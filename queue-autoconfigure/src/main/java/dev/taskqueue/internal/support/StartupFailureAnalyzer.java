package dev.taskqueue.internal.support;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports a {@link StartupFailure} anywhere in the cause chain as Spring Boot's {@code APPLICATION FAILED TO
 * START} Description and Action, so Boot logs that instead of the stack trace.
 * <p>
 * Registered in {@code META-INF/spring.factories}. First in order: when a TaskQueue check says why, that is the
 * reason, even where a Spring Boot analyzer would recognise an exception further down the chain. It must load on
 * Spring Boot 3 as well, where it reports {@code SpringBootVersionCheck}'s failure: it uses only
 * {@link AbstractFailureAnalyzer} and {@link FailureAnalysis}, which both versions have.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class StartupFailureAnalyzer extends AbstractFailureAnalyzer<StartupFailure> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, StartupFailure cause) {
		return new FailureAnalysis(cause.description(), cause.action(), cause);
	}

}
