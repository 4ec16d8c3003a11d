package dev.taskqueue.internal.jdbc;

import java.util.Map;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The bucket a new task goes into (docs/hash-sharded-claims.md): a hash of its id modulo the bucket count configured
 * for its queue here ({@code taskqueue.queues.<name>.buckets}), so bucket 0 for every queue left at the default of 1.
 * The hash is bytes 12 and 13 of the id, random in every id TaskQueue makes (UUID v7, and the ids a topic publish
 * derives, which change bytes 14 and 15), as an unsigned 16-bit number: {@link #bucket} computes it in Java for the
 * inserts that bind each task, {@link #SQL} in SQL for those whose queue or id only the statement knows.
 * <p>
 * Which count a task was inserted with does not matter for its safety: every claim starts at its own bucket and
 * wraps around all the others when that one runs short, so a task in any bucket is claimed.
 */
public final class TaskBuckets {

	/** The largest bucket count a queue may have. */
	public static final int MAX = 256;

	/** Every queue in one bucket: what an application without {@code buckets} settings has. */
	public static final TaskBuckets NONE = new TaskBuckets(Map.of());

	/**
	 * The bucket of the task whose id is {@code %1$s} in the queue {@code %2$s} (both qualified with their table), with
	 * the bucket counts bound as {@code :bucketQueues} and {@code :bucketCounts} (see {@link #bind}); the same value
	 * as {@link #bucket}.
	 */
	static final String SQL = """
			CAST(mod(get_byte(uuid_send(%1$s), 12) * 256 + get_byte(uuid_send(%1$s), 13),
			         COALESCE((SELECT counts.bucket_count
			                   FROM unnest(CAST(:bucketQueues AS text[]), CAST(:bucketCounts AS int[]))
			                       AS counts(bucket_queue, bucket_count)
			                   WHERE counts.bucket_queue = %2$s), CAST(:bucketDefault AS int))) AS smallint)""";

	private final Map<String, Integer> counts;

	private final int defaultCount;

	private final String[] queues;

	private final Integer[] values;

	/**
	 * @param counts the bucket count of each queue that has more than one; other queues have one
	 * @throws IllegalArgumentException if a count is not between 1 and {@link #MAX}
	 */
	public TaskBuckets(Map<String, Integer> counts) {
		this(counts, 1);
	}

	/**
	 * @param counts the bucket count of each queue that has its own
	 * @param defaultCount the bucket count of the other queues
	 * @throws IllegalArgumentException if a count is not between 1 and {@link #MAX}
	 */
	public TaskBuckets(Map<String, Integer> counts, int defaultCount) {
		if (defaultCount < 1 || defaultCount > MAX) {
			throw new IllegalArgumentException("the default bucket count must be between 1 and " + MAX);
		}
		this.defaultCount = defaultCount;
		counts.forEach((queue, count) -> {
			if (count < 1 || count > MAX) {
				throw new IllegalArgumentException(
						"buckets of queue '" + queue + "' must be between 1 and " + MAX + " but was " + count);
			}
		});
		this.counts = Map.copyOf(counts);
		this.queues = this.counts.keySet().toArray(String[]::new);
		this.values = new Integer[this.queues.length];
		for (int i = 0; i < this.queues.length; i++) {
			this.values[i] = this.counts.get(this.queues[i]);
		}
	}

	/** How many buckets {@code queue} has: its own count, or the default (1 unless the database wants more). */
	public int count(String queue) {
		return this.counts.getOrDefault(queue, this.defaultCount);
	}

	/** The bucket of a new task {@code id} of {@code queue}. */
	public int bucketOf(String queue, UUID id) {
		int count = count(queue);
		return (count == 1) ? 0 : bucket(id, count);
	}

	/** The bucket of {@code id} among {@code count}: its hash modulo {@code count}. */
	public static int bucket(UUID id, int count) {
		return (int) ((id.getLeastSignificantBits() >>> 16) & 0xFFFF) % count;
	}

	/** Binds the parameters of {@link #SQL}. */
	JdbcClient.StatementSpec bind(JdbcClient.StatementSpec statement) {
		return statement.param("bucketQueues", new SqlArrayValue("text", (Object[]) this.queues))
			.param("bucketCounts", new SqlArrayValue("int4", (Object[]) this.values))
			.param("bucketDefault", this.defaultCount);
	}

}
