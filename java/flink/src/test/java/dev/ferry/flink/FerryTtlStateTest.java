package dev.ferry.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.runtime.state.ttl.StateBackendTestContext;
import org.apache.flink.runtime.state.ttl.TtlStateTestBase;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.junit.jupiter.api.TestTemplate;

/**
 * Flink's TTL state suite ({@code TtlStateTestBase}) on Ferry's RocksDB backend (JNI, native checkpoints:
 * table files): expiry on read, update types, visibility, snapshots and restore; and cleanup by compaction
 * ({@code cleanupInRocksdbCompactFilter}) through Ferry's native TTL filter, for every state type of the
 * suite, also after a restore. Incremental cleanup is the heap backend's strategy: not offered, so its
 * tests expect no cleanup. Cleanup in full snapshots is a canonical snapshot's: the suite's two tests of
 * it run where checkpoints are canonical ({@link FerryTtlFfmStateTest}), as {@link #isSavepoint()} says.
 */
class FerryTtlStateTest extends TtlStateTestBase {
    /** @return the binding the backend runs on */
    String binding() {
        return "jni";
    }

    /** @return the backend under test */
    FerryStateBackend backend() {
        return new FerryStateBackend().withBinding(binding());
    }

    /** @return false: this backend's checkpoints are its table files, which keep expired values */
    @Override
    public boolean isSavepoint() {
        return false;
    }

    @Override
    protected StateBackendTestContext createStateBackendTestContext(TtlTimeProvider timeProvider) {
        return new StateBackendTestContext(timeProvider) {
            @Override
            protected StateBackend createStateBackend() {
                return backend();
            }

            @Override
            protected CheckpointStorage createCheckpointStorage() {
                return new JobManagerCheckpointStorage(64 << 20);
            }
        };
    }

    /**
     * Three keys get the same value, two of them early; once those two have expired, a compaction drops
     * their entries from the store (read with the TTL clock at 0, which hides nothing), and the third
     * key's stay. List state has a timestamp per element, not per value: its entries stay (the filter is
     * not used for it; snapshots clean it up).
     */
    @TestTemplate
    void compactionDropsExpiredValues() throws Exception {
        compactionDropsExpiredValues(false);
    }

    /**
     * As {@link #compactionDropsExpiredValues()}, with the state restored from a checkpoint before the
     * compaction (its family created or opened by the restore, before the descriptor was known): the
     * restored state gets the native TTL filter too.
     */
    @TestTemplate
    void compactionDropsExpiredValuesAfterRestore() throws Exception {
        compactionDropsExpiredValues(true);
    }

    private void compactionDropsExpiredValues(boolean restore) throws Exception {
        StateDescriptor<?, ?> desc = initTest(StateTtlConfig.newBuilder(java.time.Duration.ofMillis(TTL))
                .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                .cleanupInRocksdbCompactFilter(1000)
                .build());
        timeProvider.time = 0;
        sbetc.setCurrentKey("k1");
        ctx().update(ctx().updateUnexpired);
        sbetc.setCurrentKey("k2");
        ctx().update(ctx().updateUnexpired);
        timeProvider.time = 60;
        sbetc.setCurrentKey("k3");
        ctx().update(ctx().updateUnexpired);
        if (restore) {
            takeAndRestoreSnapshot(StateBackendTestContext.NUMBER_OF_KEY_GROUPS);
            sbetc.setCurrentKey("k3");   // the restore leaves another key current
        }
        timeProvider.time = TTL + 10;   // k1 and k2 expired, k3 not
        Object live = ctx().get();
        assertThat(ctx().isOriginalEmptyValue()).isFalse();

        FerryKeyedStateBackend<String> backend = sbetc.getKeyedStateBackend();
        Store store = backend.store();
        ColumnFamily cf = backend.states().get(desc.getName()).cf;
        store.setTtlClock(0);           // hides nothing: every entry counted
        int before = count(store, cf);
        backend.syncTtlClock();         // the compaction runs at the provider's time
        store.flush(cf);
        store.compactRange(cf, null, null);
        store.setTtlClock(0);
        int after = count(store, cf);
        assertThat(before).isPositive();
        if (desc.getType() == StateDescriptor.Type.LIST) {
            assertThat(after).isEqualTo(before);
        } else {
            assertThat(after * 3).isEqualTo(before);
        }

        sbetc.setCurrentKey("k1");
        assertThat(ctx().get()).isEqualTo(ctx().emptyValue);
        sbetc.setCurrentKey("k3");
        assertThat(ctx().get()).isEqualTo(live);
        assertThat(ctx().isOriginalEmptyValue()).isFalse();
    }

    private static int count(Store store, ColumnFamily cf) {
        int n = 0;
        try (Cursor c = store.cursor(cf, KeyRange.all(), CursorOptions.defaults())) {
            while (c.next()) {
                n++;
            }
        }
        return n;
    }
}
