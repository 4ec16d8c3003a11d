package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;

import dev.taskqueue.internal.jdbc.ClaimResult;
import dev.taskqueue.internal.jdbc.ClaimedTask;
import org.jspecify.annotations.Nullable;

/**
 * Whether the claim loop claims a queue fairly (docs/fairness.md), and from which fairness key: one per queue, used
 * by the claim loop's thread only. A queue starts with the plain claim, in the queue's order, and that statement
 * stays exactly as it is while no task of the queue has a fairness key: once a second the loop asks the partial
 * index of keyed tasks whether the queue has any ({@link #mayProbe}), one index probe that finds nothing in such a
 * queue. Once it has, the loop claims with the fair claim, each starting after the key the previous one listed last,
 * until a fair claim takes tasks and finds no key with due tasks: then back to the plain claim, and to the probe.
 */
final class FairShares {

	/** How often a queue claimed in its plain order asks whether tasks with a fairness key wait. */
	static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

	/** The key the next fair claim starts after ({@code ""} for the first); {@code null} while claims are plain. */
	private @Nullable String after;

	private long nextProbe;

	private boolean probed;

	/** Whether the next claim is fair, and after which key; {@code null} for the plain claim. */
	@Nullable String after() {
		return this.after;
	}

	/** Whether a plain-claiming queue should ask for keyed tasks now, {@code now} from {@link System#nanoTime()}. */
	boolean mayProbe(long now) {
		return this.after == null && (!this.probed || now - this.nextProbe >= 0);
	}

	/** What the probe found: whether the queue has waiting tasks with a fairness key. */
	void probed(boolean keyed, long now) {
		this.probed = true;
		this.nextProbe = now + PROBE_INTERVAL.toNanos();
		if (keyed) {
			this.after = "";
		}
	}

	/** What a fair claim did: where the next one starts, or back to the plain claim when it found no key. */
	void claimed(ClaimResult result, long now) {
		if (this.after == null) {
			return;
		}
		List<ClaimedTask> taken = result.claimed();
		if (result.nextFairnessKey() != null) {
			this.after = result.nextFairnessKey();
		}
		else if (!taken.isEmpty() || !result.handedOff().isEmpty()) {
			// It took tasks, and none of a key: the keyed tasks are gone (or not due yet, which the probe finds again).
			this.after = null;
			this.nextProbe = now + PROBE_INTERVAL.toNanos();
		}
	}

}
