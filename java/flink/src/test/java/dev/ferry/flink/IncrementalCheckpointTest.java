package dev.ferry.flink;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints made of the store's files (RocksDB, timers in the store). Incremental: a second checkpoint
 * uploads only the table files the first did not. Full (the default, native): every file, as private
 * state. Restores read them back whole, into a smaller key group range (the others removed), and from two
 * backends' checkpoints into one (rescaling down).
 */
class IncrementalCheckpointTest {
    private static final int KEY_GROUPS = SavepointInteropTest.KEY_GROUPS;
    private static final int KEYS = SavepointInteropTest.KEYS;
    private static final FerryStateBackend BACKEND = new FerryStateBackend().withIncrementalCheckpoints(true);

    private final MockEnvironment env = new MockEnvironmentBuilder().build();
    private final SharedStateRegistry registry = new SharedStateRegistryImpl();
    private final List<CheckpointableKeyedStateBackend<?>> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (CheckpointableKeyedStateBackend<?> b : open) {
            b.dispose();
        }
        registry.close();
        env.close();
    }

    private CheckpointableKeyedStateBackend<Integer> backend(KeyGroupRange range, Collection<KeyedStateHandle> restore)
            throws Exception {
        return backend(BACKEND, range, restore);
    }

    private CheckpointableKeyedStateBackend<Integer> backend(FerryStateBackend backend, KeyGroupRange range,
            Collection<KeyedStateHandle> restore) throws Exception {
        CheckpointableKeyedStateBackend<Integer> b = backend.createKeyedStateBackend(new KeyedStateBackendParametersImpl<>(
                env, new JobID(), "incremental", IntSerializer.INSTANCE, KEY_GROUPS, range,
                env.getTaskKvStateRegistry(), TtlTimeProvider.DEFAULT, new UnregisteredMetricsGroup(), (n, v) -> { },
                restore, new CloseableRegistry(), 1.0));
        open.add(b);
        return b;
    }

    private IncrementalRemoteKeyedStateHandle checkpoint(CheckpointableKeyedStateBackend<Integer> b, long id)
            throws Exception {
        KeyedStateHandle h = StateBackendTestBase.runSnapshot(b.snapshot(id, id, new MemCheckpointStreamFactory(64 << 20),
                CheckpointOptions.forCheckpointWithDefaultLocation()), registry);
        ((FerryKeyedStateBackend<Integer>) b).notifyCheckpointComplete(id);
        return assertInstanceOf(IncrementalRemoteKeyedStateHandle.class, h);
    }

    @Test
    void secondCheckpointUploadsOnlyNewFilesAndRestores() throws Exception {
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(all, List.of());
        SavepointInteropTest.write(source, 0, KEYS / 2, all);
        IncrementalRemoteKeyedStateHandle first = checkpoint(source, 1);
        // a new queue object over the same timers, as a restarted timer service would make
        SavepointInteropTest.write(source, KEYS / 2, KEYS, all);
        IncrementalRemoteKeyedStateHandle second = checkpoint(source, 2);
        assertTrue(second.getCheckpointedSize() < second.getStateSize(),
                "the second checkpoint uploads less than its whole state: " + second.getCheckpointedSize() + " of "
                        + second.getStateSize());
        assertTrue(first.getSharedState().stream().map(f -> f.getLocalPath())
                .anyMatch(name -> second.getSharedState().stream().anyMatch(f -> f.getLocalPath().equals(name))),
                "the second checkpoint shares table files with the first");

        SavepointInteropTest.check(backend(all, List.of(second)), all);
        KeyGroupRange half = KeyGroupRange.of(KEY_GROUPS / 2, KEY_GROUPS - 1);
        SavepointInteropTest.check(backend(half, List.of(second)), half);
    }

    @Test
    void twoBackendsCheckpointsRestoreIntoOne() throws Exception {
        KeyGroupRange low = KeyGroupRange.of(0, KEY_GROUPS / 2 - 1);
        KeyGroupRange high = KeyGroupRange.of(KEY_GROUPS / 2, KEY_GROUPS - 1);
        List<KeyedStateHandle> handles = new ArrayList<>();
        for (KeyGroupRange r : List.of(low, high)) {
            CheckpointableKeyedStateBackend<Integer> b = backend(r, List.of());
            SavepointInteropTest.write(b, 0, KEYS, r);
            handles.add(checkpoint(b, 1));
        }
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        SavepointInteropTest.check(backend(all, handles), all);
    }

    /** The entries a restore into {@code range} holds: per key a value, a list and {@code k % 5} map entries. */
    private static int entries(KeyGroupRange range) {
        int n = 0;
        for (int k = 0; k < KEYS; k++) {
            if (range.contains(org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(k, KEY_GROUPS))) {
                n += 2 + k % 5;
            }
        }
        return n;
    }

    @Test
    void fullCheckpointIsTheStoresFilesAndRestoresWholeAndRescaled() throws Exception {
        FerryStateBackend full = new FerryStateBackend();
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(full, all, List.of());
        SavepointInteropTest.write(source, 0, KEYS, all);
        IncrementalRemoteKeyedStateHandle first = checkpoint(source, 1);
        assertTrue(first.getSharedState().isEmpty(), "a full checkpoint shares nothing");
        assertTrue(first.getPrivateState().stream().anyMatch(f -> f.getLocalPath().endsWith(".sst")),
                "a full checkpoint holds the table files: " + first.getPrivateState());
        IncrementalRemoteKeyedStateHandle second = checkpoint(source, 2);
        assertTrue(second.getSharedState().isEmpty() && second.getCheckpointedSize() >= first.getCheckpointedSize(),
                "every full checkpoint uploads every file");

        CheckpointableKeyedStateBackend<Integer> whole = backend(full, all, List.of(second));
        SavepointInteropTest.check(whole, all);
        org.junit.jupiter.api.Assertions.assertEquals(entries(all),
                ((FerryKeyedStateBackend<Integer>) whole).numKeyValueStateEntries());
        for (KeyGroupRange half : List.of(KeyGroupRange.of(0, KEY_GROUPS / 2 - 1),
                KeyGroupRange.of(KEY_GROUPS / 2, KEY_GROUPS - 1), KeyGroupRange.of(KEY_GROUPS / 4, KEY_GROUPS / 2))) {
            CheckpointableKeyedStateBackend<Integer> rescaled = backend(full, half, List.of(second));
            SavepointInteropTest.check(rescaled, half);
            // the key groups outside the range are gone from the store
            org.junit.jupiter.api.Assertions.assertEquals(entries(half),
                    ((FerryKeyedStateBackend<Integer>) rescaled).numKeyValueStateEntries(), "entries in " + half);
        }
    }

    @Test
    void nativeSavepointIsTheStoresFilesSharesNothingAndRestores() throws Exception {
        CheckpointOptions nativeSavepoint = new CheckpointOptions(SavepointType.savepoint(SavepointFormatType.NATIVE),
                CheckpointStorageLocationReference.getDefault());
        assertTrue(BACKEND.supportsSavepointFormat(SavepointFormatType.NATIVE));
        assertFalse(new FerryStateBackend().withLmdb().supportsSavepointFormat(SavepointFormatType.NATIVE));
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(all, List.of());
        SavepointInteropTest.write(source, 0, KEYS, all);
        checkpoint(source, 1);   // an incremental checkpoint first: the savepoint must not lean on its files
        IncrementalRemoteKeyedStateHandle savepoint = assertInstanceOf(IncrementalRemoteKeyedStateHandle.class,
                StateBackendTestBase.runSnapshot(source.snapshot(2, 2, new MemCheckpointStreamFactory(64 << 20),
                        nativeSavepoint), registry));
        assertTrue(savepoint.getSharedState().isEmpty(), "a native savepoint shares nothing: " + savepoint.getSharedState());
        assertTrue(savepoint.getPrivateState().stream().anyMatch(f -> f.getLocalPath().endsWith(".sst")),
                "a native savepoint holds the table files: " + savepoint.getPrivateState());
        CheckpointableKeyedStateBackend<Integer> whole = backend(new FerryStateBackend(), all, List.of(savepoint));
        SavepointInteropTest.check(whole, all);
        org.junit.jupiter.api.Assertions.assertEquals(entries(all),
                ((FerryKeyedStateBackend<Integer>) whole).numKeyValueStateEntries());
        KeyGroupRange half = KeyGroupRange.of(KEY_GROUPS / 2, KEY_GROUPS - 1);
        SavepointInteropTest.check(backend(half, List.of(savepoint)), half);

        CheckpointableKeyedStateBackend<Integer> lmdb = backend(new FerryStateBackend().withLmdb(), all, List.of());
        SavepointInteropTest.write(lmdb, 0, 10, all);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> lmdb.snapshot(3, 3, new MemCheckpointStreamFactory(64 << 20), nativeSavepoint));
        assertTrue(e.getMessage().contains("canonical savepoint"), e.getMessage());
    }

    @Test
    void twoBackendsFullCheckpointsRestoreIntoOne() throws Exception {
        FerryStateBackend full = new FerryStateBackend();
        KeyGroupRange low = KeyGroupRange.of(0, KEY_GROUPS / 2 - 1);
        KeyGroupRange high = KeyGroupRange.of(KEY_GROUPS / 2, KEY_GROUPS - 1);
        List<KeyedStateHandle> handles = new ArrayList<>();
        for (KeyGroupRange r : List.of(low, high)) {
            CheckpointableKeyedStateBackend<Integer> b = backend(full, r, List.of());
            SavepointInteropTest.write(b, 0, KEYS, r);
            handles.add(checkpoint(b, 1));
        }
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> b = backend(full, all, handles);
        SavepointInteropTest.check(b, all);
        org.junit.jupiter.api.Assertions.assertEquals(entries(all),
                ((FerryKeyedStateBackend<Integer>) b).numKeyValueStateEntries());
    }
}
