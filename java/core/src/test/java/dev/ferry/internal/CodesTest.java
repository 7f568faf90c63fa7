package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ColumnFamilyFlag;
import dev.ferry.Compression;
import dev.ferry.PerfContext;
import dev.ferry.Engine;
import dev.ferry.ErrorCode;
import dev.ferry.KeyOrder;
import dev.ferry.LmdbFlag;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link Codes}, the one map from the API's values to the C ABI's codes: every constant of the API's
 * enums has its own code, and the codes of each kind are exactly the header's (so a constant added
 * on either side without the other fails here); each builder and flag method writes the slot or
 * bit ferry.h gives it.
 */
class CodesTest {
    /** @return the values of ferry.h's FERRY_&lt;prefix&gt;* defines, those named in {@code except} aside */
    private static TreeSet<Long> header(String prefix, String... except) throws Exception {
        TreeSet<Long> out = new TreeSet<>();
        for (Map.Entry<String, Long> e : AbiTest.defines(AbiTest.header()).entrySet()) {
            if (e.getKey().startsWith("FERRY_" + prefix) && !Arrays.asList(except).contains(e.getKey())) {
                out.add(e.getValue());
            }
        }
        assertFalse(out.isEmpty(), "no FERRY_" + prefix + "* in ferry.h");
        return out;
    }

    /** @return the codes of an enum's constants, each checked to be its own */
    private static <E extends Enum<E>> TreeSet<Long> codes(E[] values, ToIntFunction<String> code) {
        Map<Long, String> seen = new TreeMap<>();
        for (E v : values) {
            String before = seen.put((long) code.applyAsInt(v.name()), v.name());
            assertEquals(null, before, v.name() + " has the code of " + before);
        }
        return new TreeSet<>(seen.keySet());
    }

    @Test
    void everyEnumConstantHasItsOwnCodeAndTheCodesAreTheHeaders() throws Exception {
        assertEquals(header("ENGINE_"), codes(Engine.values(), Codes::engine));
        assertEquals(header("COMPRESSION_"), codes(Compression.values(), Codes::compression));
        assertEquals(header("PERF_"), codes(PerfContext.Level.values(), Codes::perfLevel));
        assertEquals(header("ORDER_"), codes(KeyOrder.values(), Codes::keyOrder));
        assertEquals(header("LMDB_", "FERRY_LMDB_FAMILY_SCAN_MAX"), codes(LmdbFlag.values(), Codes::lmdbFlag));
        assertEquals(header("CF_", "FERRY_CF_ORDER_REVERSE", "FERRY_CF_ORDER_U64_BE", "FERRY_CF_ORDER_CALLBACK"),
                codes(ColumnFamilyFlag.values(), Codes::familyFlag));
        TreeSet<Long> errors = header("E"); // the return codes: FERRY_E* below 0 (not FERRY_ENGINE_*, FERRY_ENTRY_MAX)
        errors.removeIf(v -> v >= 0);
        errors.add((long) Abi.NOTFOUND);
        assertEquals(errors, codes(ErrorCode.values(), Codes::error));
    }

    @Test
    void thePublicAccessorsGiveTheCodes() {
        assertEquals(Abi.ENGINE_ROCKSDB, Engine.ROCKSDB.id());
        assertEquals(Abi.ENGINE_LMDB, Engine.LMDB.id());
        assertEquals(Abi.EKEYEXIST, ErrorCode.KEY_EXISTS.rc());
        assertEquals(ErrorCode.KEY_EXISTS, ErrorCode.of(Abi.EKEYEXIST));
        assertEquals(ErrorCode.ENGINE, ErrorCode.of(-1));
    }

    @Test
    void anUnknownNameIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Codes.compression("BROTLI"));
        assertTrue(e.getMessage().contains("BROTLI"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Codes.engine("LEVELDB"));
        assertThrows(IllegalArgumentException.class, () -> Codes.error("OOPS"));
    }

    @Test
    void aFamilysFlagWordNamesItsKeyOrder() {
        for (int order : new int[] {Abi.ORDER_BYTEWISE, Abi.ORDER_REVERSE, Abi.ORDER_U64_BE}) {
            assertEquals(order, Codes.keyOrderOfFlags(Codes.keyOrderFlag(order) | Abi.CF_DUPSORT));
        }
        assertEquals(Abi.CF_ORDER_REVERSE, Codes.keyOrderFlag(Abi.ORDER_REVERSE));
        assertEquals(Abi.CF_ORDER_U64_BE, Codes.keyOrderFlag(Abi.ORDER_U64_BE));
        assertEquals(0, Codes.keyOrderFlag(Abi.ORDER_BYTEWISE));
    }

    @Test
    void eachFlagMethodSetsItsBit() {
        assertEquals(0, Codes.writeFlags(false, false, false, false, false));
        assertEquals(Abi.WRITE_SYNC, Codes.writeFlags(true, false, false, false, false));
        assertEquals(Abi.WRITE_NO_WAL, Codes.writeFlags(false, true, false, false, false));
        assertEquals(Abi.WRITE_NO_OVERWRITE, Codes.writeFlags(false, false, true, false, false));
        assertEquals(Abi.WRITE_NO_DUP_DATA, Codes.writeFlags(false, false, false, true, false));
        assertEquals(Abi.WRITE_APPEND, Codes.writeFlags(false, false, false, false, true));

        assertEquals(0, Codes.readFlags(true, true));
        assertEquals(Abi.CURSOR_NO_FILL_CACHE, Codes.readFlags(false, true));
        assertEquals(Abi.CURSOR_NO_VERIFY_CHECKSUMS, Codes.readFlags(true, false));

        assertEquals(0, Codes.cursorFlags(false, true, true, true, false, false));
        assertEquals(Abi.CURSOR_POINTERS, Codes.cursorFlags(true, true, true, true, false, false));
        assertEquals(Abi.CURSOR_NO_FILL_CACHE, Codes.cursorFlags(false, false, true, true, false, false));
        assertEquals(Abi.CURSOR_ENGINE_STEPS, Codes.cursorFlags(false, true, false, true, false, false));
        assertEquals(Abi.CURSOR_NO_VERIFY_CHECKSUMS, Codes.cursorFlags(false, true, true, false, false, false));
        assertEquals(Abi.CURSOR_ASYNC_IO, Codes.cursorFlags(false, true, true, true, true, false));
        assertEquals(Abi.CURSOR_AUTO_PREFIX, Codes.cursorFlags(false, true, true, true, false, true));

        assertEquals(Abi.CHECKPOINT_COMPACT, Codes.checkpointFlags(true, true));
        assertEquals(Abi.CHECKPOINT_NO_SYNC, Codes.checkpointFlags(false, false));
        assertEquals(Abi.CHECKPOINT_COMPACT | Abi.CHECKPOINT_NO_SYNC, Codes.checkpointFlags(true, false));
        assertEquals(Abi.INGEST_MOVE, Codes.ingestFlags(true));
        assertEquals(Abi.CACHE_STRICT_CAPACITY, Codes.cacheFlags(true));
        assertEquals(Abi.WBM_ALLOW_STALL, Codes.wbmFlags(true));
        assertEquals(0, Codes.checkpointFlags(false, true) | Codes.ingestFlags(false) | Codes.cacheFlags(false) | Codes.wbmFlags(false));
    }

    @Test
    void theCompactionFilterProtocolIsTheHeaders() {
        assertTrue(Codes.filterBegins(Abi.FILTER_BEGIN) && !Codes.filterBegins(Abi.FILTER_ENTRY));
        assertTrue(Codes.filterEntry(Abi.FILTER_ENTRY) && !Codes.filterEntry(Abi.FILTER_END));
        assertTrue(Codes.fullCompaction(Abi.FILTER_FULL) && !Codes.fullCompaction(Abi.FILTER_MANUAL));
        assertTrue(Codes.manualCompaction(Abi.FILTER_MANUAL) && !Codes.manualCompaction(Abi.FILTER_FULL));
        assertEquals(Abi.FILTER_KEEP, Codes.filterAnswer(false, false));
        assertEquals(Abi.FILTER_REMOVE, Codes.filterAnswer(true, false));
        assertEquals(Abi.FILTER_CHANGE, Codes.filterAnswer(false, true));
        assertEquals(Abi.MERGE_NAME_MAX, Codes.maxCallbackName());
    }

    /** Sets one slot of a default record and checks that only that slot changed, to the value given. */
    private static void slot(int index, long want, UnaryOperator<Codes.StoreRecord> set) {
        long[] before = new Codes.StoreRecord().array().clone();
        long[] after = set.apply(new Codes.StoreRecord()).array();
        before[index] = want;
        assertArrayEquals(before, after, "slot " + index);
    }

    @Test
    void theStoreRecordWritesEachOptionInItsSlot() {
        long[] d = new Codes.StoreRecord().array();
        assertEquals(Abi.OPT_COUNT, d.length);
        assertEquals(1, d[Abi.OPT_CREATE_IF_MISSING]);
        assertEquals(0, d[Abi.OPT_ERROR_IF_EXISTS]);
        assertEquals(0, d[Abi.OPT_READ_ONLY]);
        slot(Abi.OPT_CREATE_IF_MISSING, 0, r -> r.createIfMissing(false));
        slot(Abi.OPT_ERROR_IF_EXISTS, 1, r -> r.errorIfExists(true));
        slot(Abi.OPT_READ_ONLY, 1, r -> r.readOnly(true));
        slot(Abi.OPT_BLOCK_CACHE_BYTES, 7, r -> r.blockCacheBytes(7));
        slot(Abi.OPT_COMPRESSION, Abi.COMPRESSION_ZSTD, r -> r.compression(Abi.COMPRESSION_ZSTD));
        slot(Abi.OPT_WAL, 0, r -> r.wal(false));
        slot(Abi.OPT_WAL, 1, r -> r.wal(true));
        slot(Abi.OPT_WAL, -1, r -> r.wal(null));
        slot(Abi.OPT_SYNC, 1, r -> r.syncWrites(true));
        slot(Abi.OPT_BLOOM_BITS, 10, r -> r.bloomBits(10));
        slot(Abi.OPT_MAX_OPEN_FILES, 11, r -> r.maxOpenFiles(11));
        slot(Abi.OPT_MAP_SIZE, 12, r -> r.mapSize(12));
        slot(Abi.OPT_MAX_DBS, 13, r -> r.maxColumnFamilies(13));
        slot(Abi.OPT_MAX_READERS, 14, r -> r.maxReaders(14));
        slot(Abi.OPT_LMDB_FLAGS, Abi.LMDB_NOTLS, r -> r.lmdbFlags(Abi.LMDB_NOTLS));
        slot(Abi.OPT_AUTO_GROW, 15, r -> r.autoGrowStep(15));
        slot(Abi.OPT_TRANSACTIONS, Abi.TXN_MODE_PESSIMISTIC, r -> r.transactions(true, false));
        slot(Abi.OPT_TRANSACTIONS, Abi.TXN_MODE_OPTIMISTIC, r -> r.transactions(false, true));
        slot(Abi.OPT_TRANSACTIONS, Abi.TXN_MODE_NONE, r -> r.transactions(false, false));
        slot(Abi.OPT_TXN_LOCK_TIMEOUT_MS, 16, r -> r.lockTimeoutMillis(16));
        slot(Abi.OPT_STATISTICS, 1, r -> r.statistics(true));
        slot(Abi.OPT_STATISTICS, -1, r -> r.statistics(false));
        slot(Abi.OPT_READAHEAD_BYTES, 17, r -> r.readaheadBytes(17));
        slot(Abi.OPT_BLOCK_CACHE, 18, r -> r.blockCache(18));
        slot(Abi.OPT_WRITE_BUFFER_MANAGER, 19, r -> r.writeBufferManager(19));
        slot(Abi.OPT_CACHE_INDEX_AND_FILTER, 1, r -> r.cacheIndexAndFilterBlocks(true));
        slot(Abi.OPT_TTL_SECONDS, 20, r -> r.ttlSeconds(20));
    }

    @Test
    void theFamilyRecordWritesEachOptionInItsSlot() {
        long[] o = new Codes.FamilyRecord().compression(Abi.COMPRESSION_LZ4).bloomBits(1).blockSize(2).prefixLength(3)
                .keyOrder(Abi.ORDER_U64_BE).ttl(4, 5).array();
        long[] want = new long[Abi.CFOPT_COUNT];
        want[Abi.CFOPT_COMPRESSION] = Abi.COMPRESSION_LZ4;
        want[Abi.CFOPT_BLOOM_BITS] = 1;
        want[Abi.CFOPT_BLOCK_SIZE] = 2;
        want[Abi.CFOPT_PREFIX_LEN] = 3;
        want[Abi.CFOPT_KEY_ORDER] = Abi.ORDER_U64_BE;
        want[Abi.CFOPT_TTL_MS] = 4;
        want[Abi.CFOPT_TTL_OFFSET] = 5;
        assertArrayEquals(want, o);
        long[] unset = new long[Abi.CFOPT_COUNT];
        Arrays.fill(unset, -1);
        assertArrayEquals(unset, new Codes.FamilyRecord().array());
    }

    @Test
    void theLimitsAreTheHeaders() {
        assertEquals(Abi.CFOPT_MAX_BLOOM_BITS, Codes.maxBloomBits());
        assertEquals(Abi.CFOPT_MAX_BLOCK_SIZE, Codes.maxBlockSize());
        assertEquals(Abi.CFOPT_MAX_PREFIX_LEN, Codes.maxPrefixLength());
        assertEquals(Abi.CFOPT_MAX_TTL_OFFSET, Codes.maxTtlOffset());
    }
}
