package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.internal.Abi;
import org.junit.jupiter.api.Test;

/** WriteBatch's own buffer, without a store. */
class WriteBatchTest {
    /**
     * The buffer doubles as records come, but never past {@link WriteBatch#MAX_BYTES}: a batch of
     * more than 1 GiB (whose doubling would pass 2 GiB) takes its records.
     */
    @Test
    void batchOfMoreThanOneGibTakesItsRecords() {
        byte[] value = new byte[64 << 20];
        int n = 17; // 17 x 64 MiB: past 1 GiB, far below WriteBatch.MAX_BYTES
        try (WriteBatch b = new WriteBatch()) {
            for (int i = 0; i < n; i++) {
                b.put(new byte[] {(byte) i}, value);
            }
            assertEquals(n, b.count());
            assertEquals((long) n * (Abi.OP_HEADER + 1 + value.length), b.encoded().position());
        }
    }
}
