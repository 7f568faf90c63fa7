package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.Engine;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.Stores;

/**
 * {@link VersionedTopologyComparisonTest} with its restore comparison: the changelog Kafka wrote, restored in
 * random batches into a fresh built-in versioned store and a fresh Ferry store (each in Kafka's
 * InternalMockProcessorContext, from the line's test jar), must answer every {@code get} and {@code get(key,
 * asOf)} the same.
 */
class VersionedTopologyRestoreComparisonTest extends VersionedTopologyComparisonTest {
    @Override
    void restoreAndCompare(Engine engine, List<ConsumerRecord<byte[], byte[]>> changelog, long seed) throws Exception {
        String sub = "restore-" + engine + "-" + seed;
        VersionedStoreComparisonTest.Opened a = new VersionedStoreComparisonTest.Opened(
                Stores.persistentVersionedKeyValueStore("prices", HISTORY, SEGMENT), Files.createDirectories(tmp.resolve(sub + "-builtin")).toFile());
        VersionedStoreComparisonTest.Opened f = new VersionedStoreComparisonTest.Opened(
                VersionedStoreComparisonTest.ferry(engine, "prices", HISTORY.toMillis(), SEGMENT.toMillis()),
                Files.createDirectories(tmp.resolve(sub + "-ferry")).toFile());
        try {
            Random r = new Random(seed);
            long maxTs = 0;
            for (int from = 0; from < changelog.size(); ) {
                int n = 1 + r.nextInt(200);
                List<ConsumerRecord<byte[], byte[]>> batch = changelog.subList(from, Math.min(changelog.size(), from + n));
                a.context.restoreWithHeaders("prices", batch);
                f.context.restoreWithHeaders("prices", batch);
                for (ConsumerRecord<byte[], byte[]> rec : batch) {
                    maxTs = Math.max(maxTs, rec.timestamp());
                }
                from += n;
            }
            for (int k = 0; k < 8; k++) {
                byte[] key = Serdes.String().serializer().serialize("t", "item" + k);
                assertEquals(a.query(key, null), f.query(key, null));
                for (long t = maxTs - 130_000; t <= maxTs + 1_000; t += 1_300) {
                    assertEquals(a.query(key, t), f.query(key, t), engine + " restored item" + k + " as of " + t);
                }
            }
        } finally {
            a.store.close();
            f.store.close();
        }
    }

}
