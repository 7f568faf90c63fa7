package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.Abi;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Everything Java and the shim exchange (write-batch records, pages, option blocks, family records,
 * out-values) is in the machine's native byte order (ferry.h). The shim's side is C and native by
 * construction; the Java side must be native too, never a fixed order: on a little-endian machine a
 * hard-coded LITTLE_ENDIAN passes every test and only breaks on a big-endian one (linux-s390x,
 * where no Java test runs), and a ByteBuffer left at its default order is big-endian. So: the
 * encoders produce native-order bytes (checked byte by byte, with the order composed by hand), and
 * no code that talks to the shim names a fixed order or leaves a buffer at the default.
 */
class NativeByteOrderTest {
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** The 4 bytes of v in native order, composed by hand (not through a ByteBuffer). */
    private static byte[] u32(int v) {
        byte[] b = {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        if (LITTLE) {
            for (int i = 0; i < 2; i++) {
                byte t = b[i];
                b[i] = b[3 - i];
                b[3 - i] = t;
            }
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** Write-batch records (ferry.h): u32 op; u32 cf; u32 alen; u32 blen; a; b; native-endian. */
    @Test
    void writeBatchRecordsAreNativeOrder() {
        byte[] key = {1, 2, 3};
        byte[] value = {4, 5};
        // lengths above 255 put their bytes in both halves of the field, so a swapped order shows
        byte[] big = new byte[0x0102];
        try (WriteBatch b = new WriteBatch()) {
            b.put(key, value).delete(key).merge(key, big);
            ByteBuffer e = b.encoded();
            byte[] got = Arrays.copyOf(e.array(), e.position());
            byte[] want = concat(
                    u32(Abi.OP_PUT), u32(0), u32(key.length), u32(value.length), key, value,
                    u32(Abi.OP_DELETE), u32(0), u32(key.length), u32(0), key,
                    u32(Abi.OP_MERGE), u32(0), u32(key.length), u32(big.length), key, big);
            assertArrayEquals(want, got, "write-batch records are not in native order (" + ByteOrder.nativeOrder() + ")");
        }
    }

    /** The page's [u32 klen][u32 vlen] pair, which Cursor reads as one native long. */
    @Test
    void entryLengthPairReadAsOneLong() {
        byte[] pair = concat(u32(0x01020304), u32(0x0a0b0c0d));
        long lens = ByteBuffer.wrap(pair).order(ByteOrder.nativeOrder()).getLong();
        // Cursor.keyLength / valueLength
        int klen = (int) (LITTLE ? lens : lens >>> 32);
        int vlen = (int) (LITTLE ? lens >>> 32 : lens);
        assertEquals(0x01020304, klen);
        assertEquals(0x0a0b0c0d, vlen);
        String cursor = read(Path.of("src/main/java/dev/ferry/Cursor.java"));
        assertTrue(cursor.contains("return (int) (LITTLE ? lens : lens >>> 32);")
                && cursor.contains("return (int) (LITTLE ? lens >>> 32 : lens);"),
                "Cursor's key/value length decoding changed: update this test with it");
    }

    /**
     * No source of the bindings or the API names a fixed byte order, or makes a buffer without
     * setting the native one, except the user-facing views, whose order is documented (View,
     * AgronaViews: big-endian by default, as ByteBuffer's).
     */
    @Test
    void noFixedOrderInCodeThatTalksToTheShim() throws IOException {
        Set<String> userFacing = Set.of("View.java", "AgronaViews.java");
        List<String> bad = new ArrayList<>();
        List<Path> roots = new ArrayList<>(List.of(Path.of("src/main/java")));
        if (Files.isDirectory(Path.of("../ffm/src/main/java"))) {
            roots.add(Path.of("../ffm/src/main/java"));
        }
        int files = 0;
        for (Path root : roots) {
            List<Path> sources;
            try (Stream<Path> s = Files.walk(root)) {
                sources = s.filter(p -> p.toString().endsWith(".java")).toList();
            }
            for (Path p : sources) {
                files++;
                if (userFacing.contains(p.getFileName().toString())) {
                    continue;
                }
                List<String> lines = Files.readAllLines(p);
                for (int i = 0; i < lines.size(); i++) {
                    String l = lines.get(i).strip();
                    if (l.startsWith("*") || l.startsWith("//") || l.startsWith("/*")) {
                        continue; // comments, javadoc examples
                    }
                    String where = p + ":" + (i + 1) + ": " + l;
                    // KeyOrder.UINT64_BIG_ENDIAN names a key order (RocksDB's comparator), not a buffer's
                    String code = l.replace("UINT64_BIG_ENDIAN", "");
                    boolean fixed = code.contains("LITTLE_ENDIAN") || code.contains("BIG_ENDIAN") || code.contains("withOrder(");
                    if (fixed && !l.contains("nativeOrder()")) {
                        bad.add("fixed byte order: " + where);
                    }
                    boolean made = l.contains("ByteBuffer.allocate(") || l.contains("ByteBuffer.allocateDirect(")
                            || (l.contains("wrap0(") && !l.contains(" native "));
                    if (made && !l.contains(".order(ByteOrder.nativeOrder())") && !l.contains(".order(java.nio.ByteOrder.nativeOrder())")) {
                        bad.add("buffer without the native order: " + where);
                    }
                }
            }
        }
        assertTrue(files > 20, "sources not found from " + Path.of("").toAbsolutePath());
        assertEquals(List.of(), bad);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
