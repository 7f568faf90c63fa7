package dev.ferry.flink.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.util.Collector;

/**
 * The keyed job the MiniCluster tests run on every backend: a deterministic source of event indexes, a keyed
 * function with Map, List and Value state and event-time timers, and a sink that collects its output in this
 * JVM. Its output depends only on the input, never on the backend, the parallelism, where the job was stopped
 * and restored, or on when watermarks arrive: {@link #expectedOutput} computes it without Flink.
 *
 * <p>Event {@code i} has timestamp {@code i} and key {@code i % KEYS}. Per key, the function keeps the events
 * of every open window (of {@link #WINDOW} time units) in a list, their sum in a map entry per window, and
 * registers a timer at the window's end. The timer takes the window's events out of the list, checks their sum
 * against the map (and deletes the entry), counts them into a long-lived map of counts by {@code i % SUBKEYS},
 * increments the key's count of fired windows (a value) and emits one line. State from several runs of one
 * scenario (before and after a savepoint or a failure) is told apart by a run name held by the functions;
 * tests give every scenario its own name.
 */
final class KeyedStateJob {
    /** Keys of the job. */
    static final int KEYS = 32;
    /** Window length in time units (one event per time unit). */
    static final long WINDOW = 500;
    /** Buckets of the long-lived map state. */
    static final int SUBKEYS = 7;
    /** The job's maximum parallelism, the same in every run so savepoints restore at any parallelism. */
    static final int MAX_PARALLELISM = 128;

    private KeyedStateJob() {
    }

    /** Adds the job to an environment (a legacy source: it waits at a limit without holding the task's thread). */
    @SuppressWarnings("deprecation")
    static void build(StreamExecutionEnvironment env, String run, long total, long failAfter, int parallelism) {
        DataStream<Long> events = env.addSource(new GatedSource(run, total), "events", Types.LONG)
                .uid("events").setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Long>forMonotonousTimestamps()
                        .withTimestampAssigner((e, previous) -> e))
                .uid("watermarks").setParallelism(1);
        events.keyBy(e -> (int) (e % KEYS), Types.INT)
                .transform("windows", Types.STRING, new RecordingOperator(new WindowFunction(run, failAfter)))
                .uid("windows").setParallelism(parallelism).setMaxParallelism(MAX_PARALLELISM)
                .sinkTo(new CollectSink(run)).uid("sink").setParallelism(parallelism);
    }

    /** The job's output for events {@code 0..total-1}, computed without Flink. */
    static Set<String> expectedOutput(long total) {
        Set<String> out = new TreeSet<>();
        for (int key = 0; key < KEYS; key++) {
            long fired = 0;
            long[] counts = new long[SUBKEYS];
            long windows = (total + WINDOW - 1) / WINDOW;
            for (long w = 0; w < windows; w++) {
                long sum = 0;
                long n = 0;
                for (long i = w * WINDOW; i < Math.min(total, (w + 1) * WINDOW); i++) {
                    if (i % KEYS == key) {
                        sum += i;
                        n++;
                        counts[(int) (i % SUBKEYS)]++;
                    }
                }
                if (n == 0) {
                    continue;
                }
                fired++;
                TreeMap<Integer, Long> byBucket = new TreeMap<>();
                for (int b = 0; b < SUBKEYS; b++) {
                    if (counts[b] > 0) {
                        byBucket.put(b, counts[b]);
                    }
                }
                out.add(line(key, w, n, sum, fired, byBucket));
            }
        }
        return out;
    }

    static String line(int key, long window, long n, long sum, long fired, Map<Integer, Long> byBucket) {
        return "key=" + key + " window=" + window + " n=" + n + " sum=" + sum + " fired=" + fired + " buckets=" + byBucket;
    }

    /** Per-run facts the functions record in this JVM for the tests to check. */
    static final class Runs {
        static final Map<String, Set<String>> OUTPUT = new ConcurrentHashMap<>();
        static final Map<String, AtomicLong> WRITES = new ConcurrentHashMap<>();
        static final Map<String, Set<String>> BACKENDS = new ConcurrentHashMap<>();
        static final Map<String, AtomicBoolean> RESTORED = new ConcurrentHashMap<>();
        static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();
        static final Map<String, AtomicBoolean> CHECKPOINTED = new ConcurrentHashMap<>();
        /** Events with an index at or above the limit wait in the source. */
        static final Map<String, AtomicLong> LIMIT = new ConcurrentHashMap<>();
        /** The index the source waits at, -1 while it does not wait. */
        static final Map<String, AtomicLong> WAITING = new ConcurrentHashMap<>();
        /** Runs whose source runs slowly until their injected failure has happened. */
        static final Set<String> SLOW_UNTIL_FAILED = ConcurrentHashMap.newKeySet();

        private Runs() {
        }

        static Set<String> output(String run) {
            return OUTPUT.computeIfAbsent(run, r -> ConcurrentHashMap.newKeySet());
        }

        static Set<String> backends(String run) {
            return BACKENDS.computeIfAbsent(run, r -> ConcurrentHashMap.newKeySet());
        }

        static AtomicBoolean flag(Map<String, AtomicBoolean> map, String run) {
            return map.computeIfAbsent(run, r -> new AtomicBoolean());
        }

        static AtomicLong limit(String run) {
            return LIMIT.computeIfAbsent(run, r -> new AtomicLong(Long.MAX_VALUE));
        }

        static AtomicLong waiting(String run) {
            return WAITING.computeIfAbsent(run, r -> new AtomicLong(-1));
        }
    }

    /**
     * Emits events {@code 0..total-1} with their index as timestamp, in order; its position is operator state.
     * Waits (without emitting) at the run's limit, and runs slowly while a failure is armed and has not fired,
     * so that checkpoints complete before it.
     */
    @SuppressWarnings("deprecation")
    static final class GatedSource implements SourceFunction<Long>, CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        private final String run;
        private final long total;
        private transient ListState<Long> position;
        private long next;
        private volatile boolean running = true;

        GatedSource(String run, long total) {
            this.run = run;
            this.total = total;
        }

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            AtomicLong limit = Runs.limit(run);
            AtomicLong waiting = Runs.waiting(run);
            AtomicBoolean failed = Runs.flag(Runs.FAILED, run);
            while (running && next < total) {
                if (next >= limit.get()) {
                    waiting.set(next);
                    Thread.sleep(2);
                    continue;
                }
                waiting.set(-1);
                if (next % 20 == 0 && !failed.get() && Runs.SLOW_UNTIL_FAILED.contains(run)) {
                    Thread.sleep(1);
                }
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(next);
                    next++;
                }
            }
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            position.update(List.of(next));
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            position = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.LONG));
            for (Long p : position.get()) {
                next = p;
            }
        }
    }

    /** The keyed function: Map, List and Value state and event-time timers (see the class comment). */
    static final class WindowFunction extends KeyedProcessFunction<Integer, Long, String> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final String run;
        private final long failAfter;
        private transient ListState<Long> open;
        private transient MapState<Long, Long> sums;
        private transient MapState<Integer, Long> buckets;
        private transient ValueState<Long> fired;
        private transient long seen;

        WindowFunction(String run, long failAfter) {
            this.run = run;
            this.failAfter = failAfter;
        }

        @Override
        public void open(OpenContext context) {
            open = getRuntimeContext().getListState(new ListStateDescriptor<>("open", Types.LONG));
            sums = getRuntimeContext().getMapState(new MapStateDescriptor<>("sums", Types.LONG, Types.LONG));
            buckets = getRuntimeContext().getMapState(new MapStateDescriptor<>("buckets", Types.INT, Types.LONG));
            fired = getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG));
        }

        @Override
        public void processElement(Long e, Context ctx, Collector<String> out) throws Exception {
            seen++;
            AtomicBoolean failed = Runs.flag(Runs.FAILED, run);
            if (failAfter > 0 && seen >= failAfter && !failed.get() && Runs.flag(Runs.CHECKPOINTED, run).get()
                    && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("failure injected by the test after " + seen + " events");
            }
            long window = e / WINDOW;
            open.add(e);
            Long sum = sums.contains(window) ? sums.get(window) : null;
            sums.put(window, sum == null ? e : sum + e);
            ctx.timerService().registerEventTimeTimer((window + 1) * WINDOW - 1);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) throws Exception {
            long window = timestamp / WINDOW;
            List<Long> rest = new ArrayList<>();
            long n = 0;
            long sum = 0;
            for (Long e : open.get()) {
                if (e / WINDOW == window) {
                    n++;
                    sum += e;
                    int bucket = (int) (e % SUBKEYS);
                    Long c = buckets.get(bucket);
                    buckets.put(bucket, c == null ? 1 : c + 1);
                } else {
                    rest.add(e);
                }
            }
            open.update(rest);
            Long mapped = sums.get(window);
            if (mapped == null || mapped != sum) {
                throw new IllegalStateException("key " + ctx.getCurrentKey() + " window " + window + ": list sum " + sum
                        + ", map sum " + mapped);
            }
            sums.remove(window);
            if (sums.contains(window)) {
                throw new IllegalStateException("removed map entry still there: window " + window);
            }
            Long before = fired.value();
            long count = before == null ? 1 : before + 1;
            fired.update(count);
            out.collect(line(ctx.getCurrentKey(), window, n, sum, count, snapshot()));
        }

        /** The buckets map read through entries(), checked against keys(), values() and iterator(). */
        private TreeMap<Integer, Long> snapshot() throws Exception {
            TreeMap<Integer, Long> byEntries = new TreeMap<>();
            for (Map.Entry<Integer, Long> entry : buckets.entries()) {
                byEntries.put(entry.getKey(), entry.getValue());
            }
            TreeMap<Integer, Long> byIterator = new TreeMap<>();
            var it = buckets.iterator();
            while (it.hasNext()) {
                Map.Entry<Integer, Long> entry = it.next();
                byIterator.put(entry.getKey(), entry.getValue());
            }
            TreeSet<Integer> keys = new TreeSet<>();
            buckets.keys().forEach(keys::add);
            long values = 0;
            for (Long v : buckets.values()) {
                values += v;
            }
            long total = byEntries.values().stream().mapToLong(Long::longValue).sum();
            if (!byEntries.equals(byIterator) || !keys.equals(byEntries.keySet()) || values != total) {
                throw new IllegalStateException("map views disagree: entries " + byEntries + ", iterator " + byIterator
                        + ", keys " + keys + ", values sum " + values);
            }
            return byEntries;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Runs.flag(Runs.CHECKPOINTED, run).set(true);
        }
    }

    /** The keyed process operator, recording which keyed backend it runs on and whether it was restored. */
    static final class RecordingOperator extends KeyedProcessOperator<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private final String run;

        RecordingOperator(WindowFunction function) {
            super(function);
            this.run = function.run;
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            if (context.isRestored()) {
                Runs.flag(Runs.RESTORED, run).set(true);
            }
        }

        @Override
        public void open() throws Exception {
            super.open();
            Runs.backends(run).add(getKeyedStateBackend().getClass().getName());
        }
    }

    /** Collects the output lines of a run in this JVM (duplicates after a restore collapse; writes are counted). */
    static final class CollectSink implements Sink<String> {
        private static final long serialVersionUID = 1L;
        private final String run;

        CollectSink(String run) {
            this.run = run;
        }

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
            Set<String> out = Runs.output(run);
            AtomicLong writes = Runs.WRITES.computeIfAbsent(run, r -> new AtomicLong());
            return new SinkWriter<>() {
                @Override
                public void write(String line, Context ctx) {
                    out.add(line);
                    writes.incrementAndGet();
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
