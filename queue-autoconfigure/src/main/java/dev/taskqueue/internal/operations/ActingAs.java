package dev.taskqueue.internal.operations;

import org.jspecify.annotations.Nullable;

/**
 * Names who acts in the audit log entries of the operations this thread calls until the scope is closed: how the
 * dashboard and the actuator endpoint say who acts. Outside such a scope an operation is recorded as the
 * application's ({@code api}), by the name of Spring Security's authenticated principal where there is one, else as
 * {@code application} ({@link AuditLog}). Closing it gives the thread back the actor it had before.
 */
public final class ActingAs implements AutoCloseable {

	private final AuditLog.@Nullable Actor previous;

	private ActingAs(AuditLog.@Nullable Actor previous) {
		this.previous = previous;
	}

	/**
	 * Names {@code actor}, reached through {@code via}.
	 * @param actor the principal's name, or {@code anonymous}
	 * @param via {@code dashboard} or {@code actuator}
	 */
	public static ActingAs actor(String actor, String via) {
		return new ActingAs(AuditLog.bind(new AuditLog.Actor(actor, via)));
	}

	/**
	 * As {@link #actor}, naming Spring Security's authenticated principal of this thread, or {@code anonymous}: for
	 * a caller that acts for a request it does not see, such as the actuator endpoint.
	 * @param via {@code actuator}
	 */
	public static ActingAs principal(String via) {
		String principal = AuditLog.principal();
		return actor((principal != null) ? principal : "anonymous", via);
	}

	@Override
	public void close() {
		AuditLog.restore(this.previous);
	}

}
