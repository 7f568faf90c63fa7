package dev.ferry.internal;

/**
 * A cursor's page and what its last fill reported ({@link NativeCalls#cursorFill}): the memory
 * {@code ferry_cursor_fill} writes entries into, followed by the fill's error struct and the seek
 * key (the aux area; a key too long for it gets a buffer of its own). The call layer lays this
 * memory out, fills it and grows it when an entry does not fit; the cursor reads the entries from
 * {@link #address()} {@code + }{@link #HEADER} on, {@link #count()} of them, in copy form
 * ({@code [u32 klen][u32 vlen][key][value]}, each padded to 8 bytes) or, when {@link #pointers()},
 * as {@link #POINTER_ENTRY}-byte pointer entries ({@code [u64 key address][u32 klen][u32 vlen]
 * [u64 value address]}).
 *
 * <p>Thread safety: not thread-safe; used by its cursor's thread only.
 */
public final class CursorPage {
    /** Bytes of the page header, before the first entry. */
    public static final int HEADER = Abi.PAGE_HEADER;
    /** Bytes of a pointer entry: u64 key address, u32 key length, u32 value length, u64 value address. */
    public static final int POINTER_ENTRY = Abi.PTR_ENTRY;
    /** Offset of the seek key in the aux area; [0, KEY) holds the error struct. */
    private static final int KEY = Abi.ERROR_SIZE;
    /** Bytes after the page for the error struct and a seek key of up to 1024 bytes. */
    public static final int AUX = KEY + 1024;
    /** Largest page a cursor grows to (an int-sized buffer, with room for the aux area). */
    static final long MAX_PAGE = Integer.MAX_VALUE - 64 - AUX;

    /**
     * The moves of a fill ({@code FERRY_FIRST} ... {@code FERRY_SEEK_PAIR_LT}), each with the direction
     * the page is filled in.
     */
    public enum Op {
        /** The range's first entry. */
        FIRST(Abi.FIRST, true),
        /** The range's last entry. */
        LAST(Abi.LAST, false),
        /** The first entry with a key {@code >=} the seek key. */
        SEEK_GE(Abi.SEEK_GE, true),
        /** The first entry with a key {@code >} the seek key. */
        SEEK_GT(Abi.SEEK_GT, true),
        /** The last entry with a key {@code <=} the seek key. */
        SEEK_LE(Abi.SEEK_LE, false),
        /** The last entry with a key {@code <} the seek key. */
        SEEK_LT(Abi.SEEK_LT, false),
        /** On from the engine's position, in key order. */
        NEXT(Abi.NEXT, true),
        /** On from the engine's position, in reverse. */
        PREV(Abi.PREV, false),
        /** From the entry a wrapped native iterator stands on, in key order. */
        CURRENT_FWD(Abi.CURRENT_FWD, true),
        /** From the entry a wrapped native iterator stands on, in reverse. */
        CURRENT_REV(Abi.CURRENT_REV, false),
        /** Past a packed (key, value) pair, in key order. */
        SEEK_PAIR_GT(Abi.SEEK_PAIR_GT, true),
        /** Before a packed (key, value) pair, in reverse. */
        SEEK_PAIR_LT(Abi.SEEK_PAIR_LT, false);

        final int code;
        /** Whether the page is filled in key order. */
        public final boolean forward;

        Op(int code, boolean forward) {
            this.code = code;
            this.forward = forward;
        }
    }

    private final NativeCalls calls;
    /** The capacity for entries this page was made with (before any growth). */
    private final int size;
    private NativeBuffer page;
    private long addr;
    private int cap;
    /** Error struct and seek key: the page buffer's tail, or a larger buffer of its own. */
    private NativeBuffer aux;
    private int auxOff;
    private int count;
    private int flags;

    /**
     * Allocates a page; a {@link CursorHost} lends it to cursors ({@link CursorHost#takePage}) and may pool it.
     *
     * @param calls the call layer that allocates its memory
     * @param pageSize the page's capacity for entries, in bytes
     */
    public CursorPage(NativeCalls calls, int pageSize) {
        this.calls = calls;
        this.size = pageSize;
        use(calls.allocate(pageSize + AUX));
    }

    /**
     * Whether this page can be lent again as a page of {@code pageSize} bytes: it was made with that
     * size and has not grown for a large entry.
     *
     * @param pageSize the capacity for entries asked for
     * @return true when it can
     */
    public boolean fits(int pageSize) {
        return size == pageSize && page.cap == pageSize + AUX;
    }

    /**
     * Readies a pooled page for its next cursor: the seek key area back after the page, no entries.
     *
     * @return this page
     */
    public CursorPage reset() {
        use(page);
        count = 0;
        flags = 0;
        return this;
    }

    /** @return the page's first byte (the header; entries start {@link #HEADER} bytes on) */
    public long address() {
        return addr;
    }

    /** @return the entries the last fill wrote (0: none in range) */
    public int count() {
        return count;
    }

    /** @return whether the last fill reached the end of the range in its direction */
    public boolean endReached() {
        return (flags & Abi.PAGE_END) != 0;
    }

    /** @return whether the last fill wrote pointer entries (else copy entries) */
    public boolean pointers() {
        return (flags & Abi.PAGE_POINTERS) != 0;
    }

    /**
     * Copies a seek key into the aux area.
     *
     * @param k the key
     * @return its address
     */
    public long key(byte[] k) {
        long a = keySpace(k.length);
        aux.buf.put(auxOff + KEY, k);
        return a;
    }

    /**
     * Room for a seek key of {@code len} bytes in the aux area, which the page and the error struct
     * never overlap.
     *
     * @param len bytes
     * @return its address
     */
    public long keySpace(int len) {
        if (aux.cap - auxOff < KEY + len) {
            aux = calls.allocate(KEY + len);
            auxOff = 0;
        }
        return aux.addr + auxOff + KEY;
    }

    /**
     * Room for a packed (key, value) pair, the seek key of {@link Op#SEEK_PAIR_GT} and
     * {@link Op#SEEK_PAIR_LT}: {@code [u32 klen][key][value]}, its length prefix written.
     *
     * @param klen key bytes
     * @param vlen value bytes
     * @return the pair's address (the key goes 4 bytes on, the value {@code 4 + klen} on)
     */
    public long pairSpace(int klen, int vlen) {
        long a = keySpace(4 + klen + vlen);
        aux.buf.putInt((int) (a - aux.addr), klen);
        return a;
    }

    // ---- for NativeCalls ----

    int capacity() {
        return cap;
    }

    /** @return the error struct's address, cleared */
    long clearedError() {
        aux.buf.putInt(auxOff, 0);
        return aux.addr + auxOff;
    }

    NativeBuffer errorMemory() {
        return aux;
    }

    int errorOffset() {
        return auxOff;
    }

    /** @return the size a too-small page reported the next entry needs */
    long needed() {
        return page.buf.getLong(8);
    }

    void filled(int n) {
        count = n;
        flags = page.buf.getInt(4);
    }

    /**
     * Replaces the page by one of at least {@code need} bytes; a seek key and error area in a buffer of
     * their own stay there. The old memory is dropped (a grown page is not pooled: {@link #fits}).
     */
    void grow(long need) {
        int c = Integer.highestOneBit((int) need - 1) << 1;
        if (c < need) {
            c = (int) ((need + 7) & ~7L); // use keeps multiples of 8
        }
        boolean ownAux = aux != page;
        NativeBuffer n = calls.allocate(c + AUX);
        NativeBuffer keep = aux;
        int keepOff = auxOff;
        use(n);
        if (ownAux) {
            aux = keep;
            auxOff = keepOff;
        }
    }

    private void use(NativeBuffer p) {
        page = p;
        addr = p.addr;
        // the error struct after the page must be aligned (ferry_error holds int32s; UBSan found
        // it at odd offsets after odd page sizes): the page ends on a multiple of 8
        cap = (p.cap - AUX) & ~7;
        aux = p;
        auxOff = cap;
    }
}
