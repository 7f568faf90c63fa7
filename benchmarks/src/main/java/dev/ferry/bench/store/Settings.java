package dev.ferry.bench.store;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Settings a peer store's name may carry after a colon, comma-separated flags and {@code key=value}
 * pairs. Known ones: LMDB stores ({@code lmdbjava}, {@code lmdbjni}, {@code lwjgl-lmdb}, {@code
 * ferry-lmdb-*}): {@code nosync} (MDB_NOSYNC), {@code writemap} (MDB_WRITEMAP), {@code map=BYTES} (map size),
 * {@code append} (batches come in ascending key order after every stored key: MDB_APPEND where the library
 * has it); RocksDB stores: {@code nocompression}; MapDB: {@code size=BYTES} (the file's start size);
 * Chronicle Map: {@code entries=N}, {@code key=BYTES}, {@code value=BYTES} (constant sizes; without them
 * average sizes for a small data set).
 *
 * @param values the settings; a flag maps to "true"
 */
public record Settings(Map<String, String> values) {
    /** No settings. */
    public static final Settings NONE = new Settings(Map.of());

    /**
     * Parses {@code a,b=1}.
     *
     * @param text the settings, or ""
     * @return the settings
     */
    public static Settings parse(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            m.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? "true" : part.substring(eq + 1));
        }
        return new Settings(Map.copyOf(m));
    }

    /**
     * @param key a flag
     * @return true when it is set
     */
    public boolean flag(String key) {
        return Boolean.parseBoolean(values.getOrDefault(key, "false"));
    }

    /**
     * @param key a numeric setting
     * @param otherwise its value when absent
     * @return the value
     */
    public long number(String key, long otherwise) {
        String v = values.get(key);
        return v == null ? otherwise : Long.parseLong(v);
    }
}
