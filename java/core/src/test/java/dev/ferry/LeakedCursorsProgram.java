package dev.ferry;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Issue 14, defects 1 and 4, run in a child JVM with a small direct-memory limit
 * ({@code -XX:MaxDirectMemorySize=64m}): cursors leaked without close must be reclaimed while the
 * store stays open, and a cursor whose construction fails for want of direct memory must be freed
 * exactly once (it used to be freed by the failure path and again by its cleaner: a SIGSEGV in the
 * Cleaner thread at the next GC).
 *
 * <p>Arguments: store directory, engine ({@code ROCKSDB}/{@code LMDB}), binding.
 */
public final class LeakedCursorsProgram {
    private LeakedCursorsProgram() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Engine engine = Engine.valueOf(args[1]);
        StoreOptions o = (engine == Engine.LMDB ? StoreOptions.lmdb().mapSize(64L << 20).maxReaders(4096) : StoreOptions.rocksdb())
                .binding(args[2]);
        try (Store s = Store.open(dir, o)) {
            for (int i = 0; i < 1000; i++) {
                s.put(key(i), new byte[100]);
            }
            // 1. the program: leak cursors in a loop (each holds a 66 KB direct page)
            for (int i = 0; i < 5000; i++) {
                if (!s.cursor().next()) {
                    throw new AssertionError("leaked cursor " + i + " found no entry");
                }
            }
            // 2. hold cursors until one cannot be built, then let them all go
            List<Cursor> held = new ArrayList<>();
            String failure = null;
            try {
                while (held.size() < 100_000) {
                    Cursor c = s.cursor();
                    held.add(c);
                    c.next();
                }
            } catch (OutOfMemoryError | FerryException e) {
                failure = e.toString();
            }
            if (failure == null) {
                throw new AssertionError("100,000 cursors fit in 64 MB of direct memory?");
            }
            System.out.println("construction failed after " + held.size() + " cursors: " + failure);
            held = null;
            for (int i = 0; i < 5; i++) {
                System.gc();
                Thread.sleep(50);
            }
            // 3. the store still works, cursors included
            s.put(key(5000), new byte[1]);
            long n = s.scan(KeyRange.all(), (k, v) -> true);
            if (n != 1001) {
                throw new AssertionError("scan saw " + n + " entries, expected 1001");
            }
        }
        try (Store s = Store.open(dir, o)) {
            if (s.get(key(5000)) == null) {
                throw new AssertionError("reopened store lost a key");
            }
        }
        System.gc();
        Thread.sleep(100);
        System.out.println("ok");
    }

    private static byte[] key(int i) {
        return String.format("%08d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
