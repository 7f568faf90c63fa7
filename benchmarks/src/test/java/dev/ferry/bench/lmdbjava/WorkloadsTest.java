package dev.ferry.bench.lmdbjava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.bench.store.KvStore;
import dev.ferry.bench.store.Stores;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The suite's workloads give the same results on every store for the same data (both key types, both
 * insertion orders): CRC32 and XXH64 over the forward scan agree across stores and with a CRC over the
 * sorted model; readKey, readSeq and readRev agree; the unordered store runs write and readKey only. Ferry's
 * stores get the scan workloads' view form ({@code Visitor.visit(View, View)}), the others the buffer form.
 */
class WorkloadsTest {
    @Test
    void everyStoreGivesTheSameWorkloadResults(@TempDir Path dir) {
        // both key types x both orders at 100 B, and 600 B values (past the 256 B array Ferry's
        // visitors copy into first, so the CRC and XXH64 paths over views grow it)
        for (int c = 0; c < 5; c++) {
            boolean intKey = c != 1 && c != 3;
            boolean sequential = c < 2 || c == 4;
            int valSize = c == 4 ? 600 : 100;
            SuiteData d = new SuiteData(3_000, intKey, sequential, valSize, !sequential, 7);
            Map<String, List<Long>> results = new HashMap<>();
            for (String name : Stores.SUITE) {
                String spec = LmdbPlan.spec(name, d, sequential, LmdbPlan.Lmdb.PUBLISHED);
                Path where = dir.resolve(name + "-" + c);
                try (KvStore s = Stores.open(spec, where, Stores.Servers.NONE)) {
                    List<String> ws = s.ordered() ? Workloads.ALL : Workloads.UNORDERED;
                    List<Long> r = new ArrayList<>();
                    for (String w : ws) {
                        r.add(Workloads.run(w, s, d));
                    }
                    results.put(name, r);
                }
            }
            List<Long> ref = results.get("lmdbjava");
            assertEquals(expectedCrc(d), ref.get(4), "CRC over the sorted model, intKey=" + intKey);
            for (Map.Entry<String, List<Long>> e : results.entrySet()) {
                List<Long> r = e.getValue();
                assertEquals(ref.subList(0, r.size()), r, e.getKey() + " intKey=" + intKey + " sequential=" + sequential
                        + " valSize=" + valSize);
            }
            assertTrue(results.get("chronicle").size() == 2);
        }
    }

    private static long expectedCrc(SuiteData d) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < d.size(); i++) {
            m.put(d.key(i), d.value(i));
        }
        CRC32 c = new CRC32();
        for (Map.Entry<byte[], byte[]> e : m.entrySet()) {
            c.update(ByteBuffer.wrap(e.getKey()));
            c.update(ByteBuffer.wrap(e.getValue()));
        }
        return c.getValue();
    }
}
