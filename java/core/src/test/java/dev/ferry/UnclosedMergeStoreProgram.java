package dev.ferry;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A program that forgets to close: it opens a RocksDB store with a {@link JavaMergeOperator}, merges, flushes
 * and compacts (RocksDB's own threads run the operator, so they are attached to the JVM), then leaves main
 * (or calls {@link System#exit}) with the store open. The JVM must exit: RocksDB joins its thread pool in a C
 * exit handler while the exiting JVM holds its thread lock, and a pool thread detaching itself then waited
 * for that lock forever (FFM's upcall stubs did, before FFM used libferry's JNI trampoline).
 *
 * <p>Arguments: store directory, binding, {@code return} or {@code exit}. Prints the number of merges RocksDB's
 * threads ran.
 */
public final class UnclosedMergeStoreProgram {
    private UnclosedMergeStoreProgram() {
    }

    public static void main(String[] args) {
        Thread main = Thread.currentThread();
        AtomicInteger background = new AtomicInteger();
        JavaMergeOperator counter = new JavaMergeOperator() {
            private final JavaMergeOperatorContractTest.Counter sum = new JavaMergeOperatorContractTest.Counter();

            @Override public String name() {
                return sum.name();
            }

            @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
                if (Thread.currentThread() != main) {
                    background.incrementAndGet();
                }
                return sum.fullMerge(key, existing, operands);
            }
        };
        Store s = Store.open(Path.of(args[0]), StoreOptions.rocksdb().binding(args[1]).javaMergeOperator(counter));
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 200; i++) {
                s.put(StoreContract.b("base" + i), StoreContract.le64(i));
                s.merge(StoreContract.b("base" + i), StoreContract.le64(1));
                s.merge(StoreContract.b("k" + i), StoreContract.le64(1));
            }
            s.flush();
        }
        s.compactRange();
        long got = StoreContract.le64(s.get(StoreContract.b("k7")));
        if (got != 3) {
            throw new AssertionError("k7 = " + got);
        }
        System.out.println("background merges " + background.get());
        if (args[2].equals("exit")) {
            System.exit(0);
        }
    }
}
