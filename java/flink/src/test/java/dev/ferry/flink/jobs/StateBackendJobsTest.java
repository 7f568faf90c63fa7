package dev.ferry.flink.jobs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KeyedStateJob} on a MiniCluster, on the built-in RocksDB backend and on Ferry's (JNI and FFM): a plain
 * run, a run with a task failure, a savepoint restored at another parallelism, and savepoints moved between the
 * two backends. Every run's output is checked against {@link KeyedStateJob#expectedOutput}, computed without
 * Flink, so all backends are held to the same answer.
 */
class StateBackendJobsTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @TempDir
    Path dir;

    /** The run's output is the expected one; a failure names the first lines missing and unexpected. */
    private static void assertOutput(Jobs.Run run) {
        Set<String> expected = KeyedStateJob.expectedOutput(run.total());
        Set<String> actual = run.output();
        if (!expected.equals(actual)) {
            Set<String> missing = new TreeSet<>(expected);
            missing.removeAll(actual);
            Set<String> unexpected = new TreeSet<>(actual);
            unexpected.removeAll(expected);
            fail(expected.size() + " lines expected, " + actual.size() + " output; " + missing.size() + " missing, first: "
                    + missing.stream().limit(5).toList() + "; " + unexpected.size() + " unexpected, first: "
                    + unexpected.stream().limit(5).toList());
        }
    }

    private static void assertRanOn(String backend, Jobs.Run run) {
        Set<String> classes = run.backends();
        assertTrue(!classes.isEmpty() && classes.stream().allMatch(c -> c.startsWith(Jobs.keyedBackendClass(backend))),
                "keyed backends of a " + backend + " job: " + classes);
    }

    @ParameterizedTest
    @ValueSource(strings = {Jobs.ROCKSDB, Jobs.FERRY_JNI, Jobs.FERRY_FFM})
    void keyedJobWithMapListValueStateAndTimersGivesTheExpectedOutput(String backend) throws Exception {
        Jobs.Run run = new Jobs.Run("plain-" + backend).backend(backend);
        run.runToEnd();
        assertRanOn(backend, run);
        assertOutput(run);
    }

    @ParameterizedTest
    @CsvSource({"rocksdb, false", "rocksdb, true"})
    void aTaskFailureMidRunLeavesTheOutputOfARunWithoutOne(String backend, boolean incremental) throws Exception {
        failureMidRun(backend, incremental);
    }

    @ParameterizedTest
    @CsvSource({"ferry-jni, false", "ferry-ffm, false", "ferry-jni, true", "ferry-ffm, true"})
    void aTaskFailureMidRunOnFerrysBackendLeavesTheOutputOfARunWithoutOne(String backend, boolean incremental)
            throws Exception {
        failureMidRun(backend, incremental);
    }

    /** Full or incremental checkpoints, a failure after some of them, a restart from the last one. */
    private void failureMidRun(String backend, boolean incremental) throws Exception {
        Jobs.Run run = new Jobs.Run("failure-" + backend + (incremental ? "-incremental" : "")).backend(backend)
                .failAfter(3_000, dir.resolve("checkpoints")).incremental(incremental);
        run.runToEnd();
        assertTrue(run.failed(), "the failure was injected");
        assertTrue(run.restored(), "the restarted keyed operator restored its state from a checkpoint");
        assertRanOn(backend, run);
        assertOutput(run);
    }

    @ParameterizedTest
    @ValueSource(strings = {Jobs.ROCKSDB, Jobs.FERRY_JNI, Jobs.FERRY_FFM})
    void aSavepointTakenAtParallelismTwoRestoresAtThree(String backend) throws Exception {
        String name = "rescale-" + backend;
        Jobs.Run first = new Jobs.Run(name).backend(backend).parallelism(2);
        String savepoint = first.runToSavepoint(9_001, dir.resolve("savepoints"));
        assertFalse(first.restored());
        assertRanOn(backend, first);
        Jobs.Run second = new Jobs.Run(name).backend(backend).parallelism(3).restoreFrom(savepoint);
        second.runToEnd();
        assertTrue(second.restored());
        assertRanOn(backend, second);
        assertOutput(second);
    }

    @ParameterizedTest
    @ValueSource(strings = {Jobs.FERRY_JNI, Jobs.FERRY_FFM})
    void aSavepointMovesFromTheBuiltInBackendToFerrysAndBack(String ferry) throws Exception {
        String name = "switch-" + ferry;
        Jobs.Run builtIn = new Jobs.Run(name).backend(Jobs.ROCKSDB);
        String toFerry = builtIn.runToSavepoint(7_001, dir.resolve("to-ferry"));
        assertRanOn(Jobs.ROCKSDB, builtIn);
        Jobs.Run onFerry = new Jobs.Run(name).backend(ferry).restoreFrom(toFerry);
        String back = onFerry.runToSavepoint(13_003, dir.resolve("back"));
        assertTrue(onFerry.restored());
        assertRanOn(ferry, onFerry);
        Jobs.Run again = new Jobs.Run(name).backend(Jobs.ROCKSDB).restoreFrom(back);
        again.runToEnd();
        assertTrue(again.restored());
        assertOutput(again);
    }
}
