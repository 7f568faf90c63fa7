package dev.ferry.flink.jobs;

import dev.ferry.flink.FerryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs {@link KeyedStateJob} on the tests' MiniCluster (the one the test class registers): configuration per
 * backend, runs to the end, stops with savepoints, restores. A job that a test leaves behind is cancelled, so
 * that a failed test does not keep the cluster's slots.
 */
final class Jobs {
    /** The built-in RocksDB backend ({@code EmbeddedRocksDBStateBackend}). */
    static final String ROCKSDB = "rocksdb";
    /** Ferry's backend on the JNI binding. */
    static final String FERRY_JNI = "ferry-jni";
    /** Ferry's backend on the FFM binding. */
    static final String FERRY_FFM = "ferry-ffm";
    /** The factory class that {@code state.backend.type} names to choose Ferry's backend. */
    static final String FERRY_FACTORY = "dev.ferry.flink.FerryStateBackendFactory";

    private Jobs() {
    }

    /** The keyed backend class a backend's jobs must run on (a prefix for Ferry's). */
    static String keyedBackendClass(String backend) {
        return backend.equals(ROCKSDB) ? "org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend" : "dev.ferry.flink.";
    }

    /** One job's settings; the run name keys what the job's functions record in this JVM. */
    static final class Run {
        private final String name;
        private String backend = ROCKSDB;
        private long total = 20_000;
        private int parallelism = 2;
        private long failAfter;
        private boolean incremental;
        private Path checkpoints;
        private String restoreFrom;

        Run(String name) {
            this.name = name;
        }

        /** Runs on {@link #ROCKSDB}, {@link #FERRY_JNI} or {@link #FERRY_FFM}. */
        Run backend(String b) {
            // the JDK 17 run (JNI): FFM needs JDK 22+
            org.junit.jupiter.api.Assumptions.assumeTrue(!FERRY_FFM.equals(b) || Runtime.version().feature() >= 22,
                    "the FFM binding needs JDK 22+");
            backend = b;
            return this;
        }

        Run parallelism(int p) {
            parallelism = p;
            return this;
        }

        /** Checkpoints often, and fails the keyed function once after {@code n} events and a completed checkpoint. */
        Run failAfter(long n, Path checkpointDir) {
            failAfter = n;
            checkpoints = checkpointDir;
            return this;
        }

        /** Incremental checkpoints (only new table files uploaded) instead of full ones. */
        Run incremental(boolean on) {
            incremental = on;
            return this;
        }

        Run restoreFrom(String savepoint) {
            restoreFrom = savepoint;
            return this;
        }

        private JobClient start() throws Exception {
            Configuration conf = new Configuration();
            if (backend.equals(ROCKSDB)) {
                conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            } else {
                conf.set(StateBackendOptions.STATE_BACKEND, FERRY_FACTORY);
                conf.set(FerryOptions.BINDING, backend.substring("ferry-".length()));
            }
            if (checkpoints != null) {
                conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
                conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(50));
                conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
                conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
            } else {
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            }
            if (restoreFrom != null) {
                conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
            }
            KeyedStateJob.Runs.backends(name).clear();
            KeyedStateJob.Runs.flag(KeyedStateJob.Runs.RESTORED, name).set(false);
            if (failAfter > 0) {
                KeyedStateJob.Runs.SLOW_UNTIL_FAILED.add(name);
            }
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            KeyedStateJob.build(env, name, total, failAfter, parallelism);
            return env.executeAsync(name);
        }

        /** Runs the job to its end (the end of event time fires every timer left). */
        void runToEnd() throws Exception {
            JobClient job = start();
            try {
                job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
                job = null;
            } finally {
                cancel(job);
            }
        }

        /**
         * Runs the job until its source waits before event {@code stopAt}, then stops it with a canonical
         * savepoint under {@code dir} without ending event time (timers stay in the state) and returns the
         * savepoint's path.
         */
        String runToSavepoint(long stopAt, Path dir) throws Exception {
            KeyedStateJob.Runs.limit(name).set(stopAt);
            KeyedStateJob.Runs.waiting(name).set(-1);
            JobClient job = start();
            try {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (KeyedStateJob.Runs.waiting(name).get() != stopAt) {
                    if (System.nanoTime() > deadline || job.getJobStatus().get().isGloballyTerminalState()) {
                        throw new AssertionError("the source of " + name + " never reached event " + stopAt + ": job "
                                + job.getJobStatus().get());
                    }
                    Thread.sleep(5);
                }
                String path = null;
                // the source can wait at the limit before every task of the job runs: the savepoint is then
                // refused ("not all required tasks are currently running") and asked for again
                for (int attempt = 1; path == null; attempt++) {
                    try {
                        path = job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
                                .get(2, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        if (attempt == 100 || job.getJobStatus().get().isGloballyTerminalState()) {
                            throw e;
                        }
                        Thread.sleep(20);
                    }
                }
                job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
                job = null;
                KeyedStateJob.Runs.limit(name).set(Long.MAX_VALUE);
                return path;
            } finally {
                cancel(job);
            }
        }

        private static void cancel(JobClient job) throws Exception {
            if (job != null && !job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(1, TimeUnit.MINUTES);
            }
        }

        /** The lines the run's sink received, duplicates collapsed (a restore replays from the last checkpoint). */
        Set<String> output() {
            return new TreeSet<>(KeyedStateJob.Runs.output(name));
        }

        /** The keyed backend classes the run's last job ran on. */
        Set<String> backends() {
            return KeyedStateJob.Runs.backends(name);
        }

        /** Whether the last job's keyed operator started from restored state. */
        boolean restored() {
            return KeyedStateJob.Runs.flag(KeyedStateJob.Runs.RESTORED, name).get();
        }

        /** Whether the injected failure happened. */
        boolean failed() {
            return KeyedStateJob.Runs.flag(KeyedStateJob.Runs.FAILED, name).get();
        }

        long total() {
            return total;
        }
    }
}
