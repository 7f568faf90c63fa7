package dev.ferry.bench.flink;

import dev.ferry.flink.FerryOptions;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * One keyed job end to end on a local MiniCluster, on Flink's built-in RocksDB backend and on Ferry's, interleaved
 * (the backend order rotates by round; round 1 is warm-up): {@code events} events from a sequence source, keyed by
 * {@code event % keys}, into a function that per event updates a value, puts a map entry and registers an
 * event-time timer, and per timer reads the value and walks the key's map. Prints events per second of the job's
 * net run time (best of rounds 2..) and the built-in backend's time over Ferry's.
 *
 * <pre>java -cp flink-benchmarks.jar dev.ferry.bench.flink.FlinkJobThroughput [--events N] [--keys K] [--rounds R]
 *     [--backends rocksdb,ferry-jni,ferry-ffm] [--out file.csv]</pre>
 */
public final class FlinkJobThroughput {
    private FlinkJobThroughput() {
    }

    /**
     * Runs the comparison.
     *
     * @param args see the class comment
     * @throws Exception if a job fails
     */
    public static void main(String[] args) throws Exception {
        long events = 1_000_000;
        int keys = 10_000;
        int rounds = 3;
        List<String> backends = List.of("rocksdb", "ferry-jni", "ferry-ffm");
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--events" -> events = Long.parseLong(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--backends" -> backends = Arrays.asList(args[++i].split(","));
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (see the class comment)");
            }
        }
        if (rounds < 2 || !backends.contains("rocksdb")) {
            throw new IllegalArgumentException("needs 2 rounds or more (the first is warm-up) and the rocksdb backend");
        }
        Map<String, double[]> perSecond = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
            List<String> order = new ArrayList<>(backends);
            Collections.rotate(order, -r);
            for (String b : order) {
                double eps = run(b, events, keys);
                double[] prev = perSecond.getOrDefault(b, new double[0]);
                double[] next = Arrays.copyOf(prev, prev.length + 1);
                next[prev.length] = eps;
                perSecond.put(b, next);
                System.out.printf(Locale.ROOT, "round %d %s: %.0f events/s%n", r + 1, b, eps);
            }
        }
        double[] base = perSecond.get("rocksdb");
        System.out.printf("%nKeyed job on a MiniCluster: %d events, %d keys; best of rounds 2..; speed-up = Ferry's events/s over"
                + " the built-in backend's (median of per-round ratios +- half their range)%n", events, keys);
        PrintStream csv = out == null ? null : new PrintStream(Files.newOutputStream(out));
        if (csv != null) {
            csv.println("backend,workload,best,median,unit,speedup,speedup_error");
        }
        for (var e : perSecond.entrySet()) {
            double[] ratio = FlinkInterleaved.ratios(e.getValue(), base);
            double best = Arrays.stream(FlinkInterleaved.afterWarmUp(e.getValue())).max().orElse(Double.NaN);
            System.out.printf(Locale.ROOT, "%-10s %12.0f events/s   speed-up %.2f +-%.2f%n", e.getKey(), best,
                    FlinkInterleaved.median(ratio), FlinkInterleaved.halfRange(ratio));
            if (csv != null) {
                csv.printf(Locale.ROOT, "%s,job,%.1f,%.1f,events/s,%.4f,%.4f%n", e.getKey(), best,
                        FlinkInterleaved.median(FlinkInterleaved.afterWarmUp(e.getValue())), FlinkInterleaved.median(ratio),
                        FlinkInterleaved.halfRange(ratio));
            }
        }
        if (csv != null) {
            csv.close();
        }
    }

    /** One job on a backend; events per second of its net run time. */
    static double run(String backend, long events, int keys) throws Exception {
        Configuration conf = new Configuration();
        if (backend.equals("rocksdb")) {
            conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        } else {
            conf.set(StateBackendOptions.STATE_BACKEND, "dev.ferry.flink.FerryStateBackendFactory");
            conf.set(FerryOptions.BINDING, backend.substring("ferry-".length()));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        int k = keys;
        env.fromSequence(0, events - 1).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((e, t) -> e))
                .setParallelism(1)
                .keyBy(e -> e % k, Types.LONG)
                .process(new Counting())
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("ferry-flink-throughput-" + backend);
        return events * 1000.0 / result.getNetRuntime();
    }

    /** Per event: a value update, a map put, a timer; per timer: the value and a walk of the key's map. */
    static final class Counting extends KeyedProcessFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> count;
        private transient MapState<Long, Long> recent;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            recent = getRuntimeContext().getMapState(new MapStateDescriptor<>("recent", Types.LONG, Types.LONG));
        }

        @Override
        public void processElement(Long e, Context ctx, Collector<Long> out) throws Exception {
            Long c = count.value();
            count.update(c == null ? 1 : c + 1);
            recent.put(e % 8, e);
            ctx.timerService().registerEventTimeTimer(e / 1000 * 1000 + 999);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) throws Exception {
            long sum = count.value();
            for (Long v : recent.values()) {
                sum += v;
            }
            out.collect(sum);
        }
    }
}
