package dev.taskqueue.sample;

import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /signups} with {@code {"email": "..."}}: answers 201, 400 for a bad email, 409 for a known one.
 */
@RestController
public class SignupController {

	private final SignupService signups;

	public SignupController(SignupService signups) {
		this.signups = signups;
	}

	@PostMapping("/signups")
	@ResponseStatus(HttpStatus.CREATED)
	public Signup signUp(@RequestBody SignupRequest request) {
		String email = request.email();
		if (email == null || email.isBlank() || !email.contains("@")) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "email must be an email address");
		}
		return new Signup(this.signups.signUp(email), email);
	}

	@ExceptionHandler(DuplicateKeyException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	void alreadySignedUp() {
	}

	/** The request body. */
	public record SignupRequest(@Nullable String email) {
	}

	/** The response body. */
	public record Signup(UUID id, String email) {
	}

}
