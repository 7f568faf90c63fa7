package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link OpSubset}: the power-cut test's check of a torn, unsynced RocksDB round, on hand-made outcomes. */
class OpSubsetTest {
    private static TreeMap<byte[], byte[]> stateAfter(long upTo) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
        for (long id = 0; id <= upTo; id++) {
            CrashWriter.applyToModel(m, id);
        }
        return m;
    }

    private static TreeMap<byte[], byte[]> apply(TreeMap<byte[], byte[]> start, List<Long> ops) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(start);
        for (long id : ops) {
            CrashWriter.applyToModel(m, id);
        }
        return m;
    }

    @Test
    void anySubsetOfWholeOpsIsAccepted() {
        TreeMap<byte[], byte[]> start = stateAfter(199);
        Random r = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            List<Long> ops = new ArrayList<>();
            for (long id = 200; id <= 320; id++) {
                if (r.nextInt(4) != 0) {
                    ops.add(id);
                }
            }
            OpSubset.Result res = OpSubset.find(start, 200, 320, apply(start, ops));
            assertTrue(res.found(), () -> "trial: " + res.why());
        }
        // a prefix and nothing at all are subsets too
        assertTrue(OpSubset.find(start, 200, 320, apply(start, List.of(200L, 201L, 202L))).found());
        assertTrue(OpSubset.find(start, 200, 320, start).found());
    }

    @Test
    void aPartlyAppliedBatchIsRejected() {
        TreeMap<byte[], byte[]> start = stateAfter(199);
        long batch = 200;
        while (!CrashWriter.isBatch(batch) || CrashWriter.batchSize(batch) < 3) {
            batch++;
        }
        List<Long> before = new ArrayList<>();
        for (long id = 200; id < batch; id++) {
            before.add(id);
        }
        TreeMap<byte[], byte[]> m = apply(start, before);
        List<byte[][]> recs = CrashWriter.records(batch);
        m.put(recs.get(0)[0], recs.get(0)[1]); // only the batch's first record
        OpSubset.Result res = OpSubset.find(start, 200, batch + 20, m);
        assertFalse(res.found(), "a batch with one of its records applied was accepted");
    }

    @Test
    void aValueNoOpWroteAndALostDurableKeyAreRejected() {
        TreeMap<byte[], byte[]> start = stateAfter(199);
        TreeMap<byte[], byte[]> m = apply(start, List.of(200L, 201L));
        m.put(CrashWriter.putKey(250), new byte[] {1, 2, 3}); // never written with that value
        OpSubset.Result res = OpSubset.find(start, 200, 260, m);
        assertFalse(res.found());
        assertTrue(res.why().contains("no op of the round wrote"), res.why());

        // a key of the round's start that no op of the round deletes is gone
        TreeMap<byte[], byte[]> lost = new TreeMap<>(start);
        byte[] untouched = null;
        for (byte[] k : start.keySet()) {
            boolean touched = false;
            for (long id = 200; id <= 210 && !touched; id++) {
                for (byte[][] kv : CrashWriter.records(id)) {
                    touched |= Arrays.equals(kv[0], k);
                }
            }
            if (!touched) {
                untouched = k;
                break;
            }
        }
        lost.remove(untouched);
        OpSubset.Result res2 = OpSubset.find(start, 200, 210, lost);
        assertFalse(res2.found());
        assertTrue(res2.why().contains("missing"), res2.why());
    }

    @Test
    void anOutOfOrderStateIsRejected() {
        // key L holds the id of the last applied batch: an earlier batch's L with a later batch's records present
        TreeMap<byte[], byte[]> start = stateAfter(199);
        List<Long> batches = new ArrayList<>();
        for (long id = 200; batches.size() < 2; id++) {
            if (CrashWriter.isBatch(id)) {
                batches.add(id);
            }
        }
        TreeMap<byte[], byte[]> m = apply(start, batches);
        m.put(CrashWriter.LAST, CrashWriter.records(batches.get(0)).stream()
                .filter(kv -> Arrays.equals(kv[0], CrashWriter.LAST)).findFirst().orElseThrow()[1]);
        OpSubset.Result res = OpSubset.find(start, 200, batches.get(1) + 5, m);
        assertFalse(res.found());
        assertEquals(null, res.applied());
    }
}
