package io.github.incrementalrebalance.control;

import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.Collection;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import org.apache.kafka.streams.processor.TaskId;

/**
 * The task sets and learner lags of a plan record, packed: every member reads every plan record, and written as task
 * id strings a member of a 100 000-task group holds a megabyte of them, the topic's largest message by default. Packed,
 * a task costs well under a byte when the set is dense and about two when it is scattered.
 * <p>
 * The form is unsigned varints: for tasks, per subtopology in order, the subtopology's distance from the previous one,
 * the number of its tasks, then each partition's distance past the previous one (the first from -1); for lags, each
 * lag in the order of its tasks. Written as {@value #PREFIX} and the Base64 of their raw DEFLATE, or, for the few
 * bytes of a member's share of a group (where setting up DEFLATE costs the reader more than the bytes it saves), as
 * {@value #PLAIN} and the Base64 of the varints themselves. A set with a task of a named topology is not packed (it
 * has no room for the name). Called from any thread; holds nothing.
 */
final class PackedTasks {

	static final String PREFIX = "z1:";

	static final String PLAIN = "v1:";

	/** Fewer varint bytes than this are not deflated. */
	private static final int DEFLATED_FROM = 256;

	/** The most bytes a packed value may inflate to: ten million tasks; a record claiming more is refused. */
	private static final int MAX_INFLATED = 64 << 20;

	private PackedTasks() {
	}

	static boolean canPack(Collection<TaskId> tasks) {
		return tasks.stream().allMatch((task) -> task.topologyName() == null);
	}

	/**
	 * @param tasks tasks without a topology name ({@link #canPack})
	 * @return the packed form
	 */
	static String pack(Collection<TaskId> tasks) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		SortedSet<TaskId> sorted = new TreeSet<>(tasks);
		int subtopology = 0;
		while (!sorted.isEmpty()) {
			TaskId first = sorted.first();
			SortedSet<TaskId> ofSubtopology = sorted.headSet(new TaskId(first.subtopology() + 1, 0));
			varint(out, first.subtopology() - subtopology);
			varint(out, ofSubtopology.size());
			int partition = -1;
			for (TaskId task : ofSubtopology) {
				varint(out, task.partition() - partition - 1);
				partition = task.partition();
			}
			subtopology = first.subtopology();
			sorted = sorted.tailSet(new TaskId(first.subtopology() + 1, 0));
		}
		return deflate(out.toByteArray());
	}

	/**
	 * @param packed what {@link #pack} wrote
	 * @return the tasks
	 * @throws IllegalArgumentException when the value is not a packed task set, saying why
	 */
	static SortedSet<TaskId> unpackTasks(String packed) {
		Varints in = new Varints(inflate(packed));
		SortedSet<TaskId> tasks = new TreeSet<>();
		try {
			int subtopology = 0;
			while (in.hasMore()) {
				subtopology = Math.addExact(subtopology, in.nextInt());
				int count = in.nextInt();
				int partition = -1;
				for (int i = 0; i < count; i++) {
					partition = Math.addExact(partition, Math.addExact(in.nextInt(), 1));
					tasks.add(new TaskId(subtopology, partition));
				}
			}
		}
		catch (ArithmeticException ex) {
			throw new IllegalArgumentException("holds a task number past the largest int");
		}
		return tasks;
	}

	/**
	 * @param lags non-negative lags
	 * @return the packed form
	 */
	static String pack(long[] lags) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		for (long lag : lags) {
			varint(out, Math.max(0, lag));
		}
		return deflate(out.toByteArray());
	}

	/**
	 * @param packed what {@link #pack(long[])} wrote
	 * @param count how many lags it holds
	 * @return the lags
	 * @throws IllegalArgumentException when the value is not as many packed lags, saying why
	 */
	static long[] unpackLags(String packed, int count) {
		Varints in = new Varints(inflate(packed));
		long[] lags = new long[count];
		for (int i = 0; i < count; i++) {
			if (!in.hasMore()) {
				throw new IllegalArgumentException("holds " + i + " lag(s) for " + count + " task(s)");
			}
			lags[i] = in.next();
		}
		if (in.hasMore()) {
			throw new IllegalArgumentException("holds more lags than its " + count + " task(s)");
		}
		return lags;
	}

	private static void varint(ByteArrayOutputStream out, long value) {
		long rest = value;
		while ((rest & ~0x7FL) != 0) {
			out.write((int) ((rest & 0x7F) | 0x80));
			rest >>>= 7;
		}
		out.write((int) rest);
	}

	private static String deflate(byte[] bytes) {
		if (bytes.length < DEFLATED_FROM) {
			return PLAIN + Base64.getEncoder().withoutPadding().encodeToString(bytes);
		}
		Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
		try {
			deflater.setInput(bytes);
			deflater.finish();
			ByteArrayOutputStream out = new ByteArrayOutputStream(64 + bytes.length / 4);
			byte[] buffer = new byte[8192];
			while (!deflater.finished()) {
				out.write(buffer, 0, deflater.deflate(buffer));
			}
			return PREFIX + Base64.getEncoder().withoutPadding().encodeToString(out.toByteArray());
		}
		finally {
			deflater.end();
		}
	}

	private static byte[] inflate(String packed) {
		if (packed.startsWith(PLAIN)) {
			return base64(packed, PLAIN);
		}
		if (!packed.startsWith(PREFIX)) {
			throw new IllegalArgumentException("starts with neither " + PREFIX + " nor " + PLAIN);
		}
		byte[] deflated = base64(packed, PREFIX);
		Inflater inflater = new Inflater(true);
		try {
			inflater.setInput(deflated);
			ByteArrayOutputStream out = new ByteArrayOutputStream(deflated.length * 4);
			byte[] buffer = new byte[8192];
			while (!inflater.finished()) {
				int inflated = inflater.inflate(buffer);
				if (inflated == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary())) {
					throw new IllegalArgumentException("ends before its DEFLATE stream does");
				}
				out.write(buffer, 0, inflated);
				if (out.size() > MAX_INFLATED) {
					throw new IllegalArgumentException("inflates past " + MAX_INFLATED + " bytes");
				}
			}
			return out.toByteArray();
		}
		catch (DataFormatException ex) {
			throw new IllegalArgumentException("is not a DEFLATE stream (" + ex.getMessage() + ")");
		}
		finally {
			inflater.end();
		}
	}

	private static byte[] base64(String packed, String prefix) {
		try {
			return Base64.getDecoder().decode(packed.substring(prefix.length()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("is not Base64 after " + prefix + " (" + ex.getMessage() + ")");
		}
	}

	/** Reads unsigned varints off inflated bytes. */
	private static final class Varints {

		private final byte[] bytes;

		private int position;

		Varints(byte[] bytes) {
			this.bytes = bytes;
		}

		boolean hasMore() {
			return this.position < this.bytes.length;
		}

		int nextInt() {
			long value = next();
			if (value > Integer.MAX_VALUE) {
				throw new IllegalArgumentException("holds " + value + " where a task number fits an int");
			}
			return (int) value;
		}

		long next() {
			long value = 0;
			for (int shift = 0; shift < 63; shift += 7) {
				if (!hasMore()) {
					throw new IllegalArgumentException("ends inside a number");
				}
				byte next = this.bytes[this.position++];
				value |= (long) (next & 0x7F) << shift;
				if (next >= 0) {
					return value;
				}
			}
			throw new IllegalArgumentException("holds a number longer than 63 bits");
		}

	}

}
