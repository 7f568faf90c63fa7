package dev.ferry;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of a RocksDB store's statistics ({@link Store#statistics()}, with
 * {@link StoreOptions#statistics(boolean)} on): RocksDB's tickers (counters since open) and
 * histograms, by RocksDB's names ({@code "rocksdb.bytes.written"}, {@code "rocksdb.db.get.micros"}).
 *
 * <p>Names, not numbers: RocksDB numbers its tickers and histograms by position in a C++ enum that
 * gains entries between releases (rocksdbjni 7.9.2 reports 252 lines, 11.8.1 344), so a number
 * pinned for one release reads another counter on the next. Ferry reads RocksDB's own listing
 * (the {@code rocksdb.options-statistics} property) and keys it by name, which stays the same; the
 * {@link Ticker} and {@link HistogramType} constants name commonly used ones, and any other name
 * the running RocksDB reports works as a string.
 *
 * <p>Thread safety: immutable.
 */
public final class Statistics {
    private final Map<String, Long> tickers;
    private final Map<String, Histogram> histograms;

    private Statistics(Map<String, Long> tickers, Map<String, Histogram> histograms) {
        this.tickers = Collections.unmodifiableMap(tickers);
        this.histograms = Collections.unmodifiableMap(histograms);
    }

    /** Commonly used RocksDB tickers (counters since the store opened). */
    public enum Ticker {
        /** Bytes written by puts, merges and deletes (keys and values). */
        BYTES_WRITTEN("rocksdb.bytes.written"),
        /** Bytes of values read by point reads. */
        BYTES_READ("rocksdb.bytes.read"),
        /** Keys written (puts, merges, deletes). */
        KEYS_WRITTEN("rocksdb.number.keys.written"),
        /** Keys read by point reads. */
        KEYS_READ("rocksdb.number.keys.read"),
        /** Keys updated in place. */
        KEYS_UPDATED("rocksdb.number.keys.updated"),
        /** Block cache hits. */
        BLOCK_CACHE_HIT("rocksdb.block.cache.hit"),
        /** Block cache misses. */
        BLOCK_CACHE_MISS("rocksdb.block.cache.miss"),
        /** Reads a bloom filter answered without reading the table. */
        BLOOM_FILTER_USEFUL("rocksdb.bloom.filter.useful"),
        /** Point reads answered by a memtable. */
        MEMTABLE_HIT("rocksdb.memtable.hit"),
        /** Point reads not answered by a memtable. */
        MEMTABLE_MISS("rocksdb.memtable.miss"),
        /** Iterator seeks. */
        DB_SEEK("rocksdb.number.db.seek"),
        /** Iterator next calls. */
        DB_NEXT("rocksdb.number.db.next"),
        /** Bytes read by compactions. */
        COMPACT_READ_BYTES("rocksdb.compact.read.bytes"),
        /** Bytes written by compactions. */
        COMPACT_WRITE_BYTES("rocksdb.compact.write.bytes"),
        /** Bytes written by flushes. */
        FLUSH_WRITE_BYTES("rocksdb.flush.write.bytes"),
        /** Bytes written to the write-ahead log. */
        WAL_BYTES("rocksdb.wal.bytes"),
        /** Merges that failed in the merge operator. */
        MERGE_FAILURES("rocksdb.number.merge.failures");

        private final String engineName;

        Ticker(String engineName) {
            this.engineName = engineName;
        }

        /** @return RocksDB's name of the ticker */
        public String engineName() {
            return engineName;
        }
    }

    /** Commonly used RocksDB histograms. */
    public enum HistogramType {
        /** Point read time, microseconds. */
        DB_GET("rocksdb.db.get.micros"),
        /** Write time, microseconds. */
        DB_WRITE("rocksdb.db.write.micros"),
        /** Iterator seek time, microseconds. */
        DB_SEEK("rocksdb.db.seek.micros"),
        /** Multi-get time, microseconds. */
        DB_MULTIGET("rocksdb.db.multiget.micros"),
        /** Compaction time, microseconds. */
        COMPACTION_TIME("rocksdb.compaction.times.micros"),
        /** Flush time, microseconds. */
        FLUSH_TIME("rocksdb.db.flush.micros"),
        /** Table file read time, microseconds. */
        SST_READ("rocksdb.sst.read.micros"),
        /** Write-ahead log sync time, microseconds. */
        WAL_SYNC("rocksdb.wal.file.sync.micros"),
        /** Bytes per write call. */
        BYTES_PER_WRITE("rocksdb.bytes.per.write"),
        /** Bytes per point read. */
        BYTES_PER_READ("rocksdb.bytes.per.read");

        private final String engineName;

        HistogramType(String engineName) {
            this.engineName = engineName;
        }

        /** @return RocksDB's name of the histogram */
        public String engineName() {
            return engineName;
        }
    }

    /**
     * One histogram's summary as RocksDB reports it: the number of samples, their sum, and the
     * 50th, 95th, 99th and 100th percentiles (RocksDB interpolates percentiles within its buckets).
     *
     * <p>Thread safety: immutable.
     */
    public static final class Histogram {
        private final long count;
        private final long sum;
        private final double p50;
        private final double p95;
        private final double p99;
        private final double max;

        Histogram(long count, long sum, double p50, double p95, double p99, double max) {
            this.count = count;
            this.sum = sum;
            this.p50 = p50;
            this.p95 = p95;
            this.p99 = p99;
            this.max = max;
        }

        /** @return the number of samples */
        public long count() {
            return count;
        }

        /** @return the sum of the samples */
        public long sum() {
            return sum;
        }

        /** @return the median */
        public double p50() {
            return p50;
        }

        /** @return the 95th percentile */
        public double p95() {
            return p95;
        }

        /** @return the 99th percentile */
        public double p99() {
            return p99;
        }

        /** @return the largest sample (RocksDB's P100) */
        public double max() {
            return max;
        }

        /** @return sum / count, or 0 without samples */
        public double average() {
            return count == 0 ? 0 : (double) sum / count;
        }

        @Override
        public String toString() {
            return "Histogram[count=" + count + " sum=" + sum + " p50=" + p50 + " p95=" + p95 + " p99=" + p99
                    + " max=" + max + "]";
        }
    }

    /**
     * Parses RocksDB's statistics listing: {@code "<name> COUNT : <n>"} per ticker and
     * {@code "<name> P50 : <x> P95 : <x> P99 : <x> P100 : <x> COUNT : <n> SUM : <n>"} per histogram.
     * Lines of another shape are skipped.
     */
    static Statistics parse(String text) {
        Map<String, Long> t = new LinkedHashMap<>();
        Map<String, Histogram> h = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] w = line.trim().split("\\s+");
            try {
                if (w.length == 4 && w[1].equals("COUNT") && w[2].equals(":")) {
                    t.put(w[0], Long.parseLong(w[3]));
                } else if (w.length == 19 && w[1].equals("P50") && w[4].equals("P95") && w[7].equals("P99")
                        && w[10].equals("P100") && w[13].equals("COUNT") && w[16].equals("SUM")) {
                    h.put(w[0], new Histogram(Long.parseLong(w[15]), Long.parseLong(w[18]), Double.parseDouble(w[3]),
                            Double.parseDouble(w[6]), Double.parseDouble(w[9]), Double.parseDouble(w[12])));
                }
            } catch (NumberFormatException e) {
                // not a statistics line
            }
        }
        return new Statistics(t, h);
    }

    /**
     * A ticker by RocksDB's name.
     *
     * @param name e.g. {@code "rocksdb.block.cache.miss"}
     * @return its count since the store opened
     * @throws IllegalArgumentException when the running RocksDB has no ticker of that name
     */
    public long ticker(String name) {
        Long v = tickers.get(Objects.requireNonNull(name, "name"));
        if (v == null) {
            throw new IllegalArgumentException("RocksDB reports no ticker '" + name + "' (" + tickers.size()
                    + " tickers; tickers() lists them)");
        }
        return v;
    }

    /**
     * @param t the ticker
     * @return its count since the store opened
     */
    public long ticker(Ticker t) {
        return ticker(Objects.requireNonNull(t, "ticker").engineName());
    }

    /**
     * A histogram by RocksDB's name.
     *
     * @param name e.g. {@code "rocksdb.db.get.micros"}
     * @return its summary
     * @throws IllegalArgumentException when the running RocksDB has no histogram of that name
     */
    public Histogram histogram(String name) {
        Histogram v = histograms.get(Objects.requireNonNull(name, "name"));
        if (v == null) {
            throw new IllegalArgumentException("RocksDB reports no histogram '" + name + "' (" + histograms.size()
                    + " histograms; histograms() lists them)");
        }
        return v;
    }

    /**
     * @param t the histogram
     * @return its summary
     */
    public Histogram histogram(HistogramType t) {
        return histogram(Objects.requireNonNull(t, "histogram").engineName());
    }

    /** @return every ticker by name, in RocksDB's order (unmodifiable) */
    public Map<String, Long> tickers() {
        return tickers;
    }

    /** @return every histogram by name, in RocksDB's order (unmodifiable) */
    public Map<String, Histogram> histograms() {
        return histograms;
    }
}
