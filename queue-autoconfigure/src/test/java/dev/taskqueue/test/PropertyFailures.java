package dev.taskqueue.test;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Reads what a startup failure says about refused {@code taskqueue.*} properties, as Spring Boot reports it: the
 * property (dashed, under {@code taskqueue}) and the reason.
 */
public final class PropertyFailures {

	private PropertyFailures() {
	}

	/** Asserts that {@code failure} refuses {@code property} (e.g. {@code taskqueue.worker.concurrency}) for {@code reason}. */
	public static void assertRefused(Throwable failure, String property, String reason) {
		assertThat(refusals(failure)).contains(property + ": " + reason);
	}

	/** The refusals of {@code failure}, as {@code property: reason}, or {@code reason} for errors of no property. */
	public static List<String> refusals(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BindValidationException validation) {
				List<String> refusals = new ArrayList<>();
				String prefix = validation.getValidationErrors().getName() + ".";
				for (ObjectError error : validation.getValidationErrors().getAllErrors()) {
					refusals.add((error instanceof FieldError field) ? prefix + field.getField() + ": "
							+ error.getDefaultMessage() : error.getDefaultMessage());
				}
				return refusals;
			}
		}
		return fail("No property was refused: " + failure, failure);
	}

}
