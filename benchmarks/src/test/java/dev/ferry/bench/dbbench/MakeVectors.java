package dev.ferry.bench.dbbench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Writes {@code dbbench-vectors.txt}, the test vectors {@link FormatVectorsTest} checks: each case
 * runs the real C++ db_bench (the cached build of {@code benchmarks/cpp-dbbench/build.sh}) on a
 * fresh directory, then lists the database it wrote, in key order, through RocksJava: key in hex,
 * value in hex (or its SHA-256 when longer than 64 bytes). Run it again only if the cases change:
 * <pre>
 * java -cp benchmarks/target/test-classes:benchmarks/target/benchmarks.jar dev.ferry.bench.dbbench.MakeVectors \
 *     benchmarks/src/test/resources/dev/ferry/bench/dbbench/dbbench-vectors.txt
 * </pre>
 */
public final class MakeVectors {
    /** The cases: db_bench flags (without --db). */
    static final List<String> CASES = List.of(
            "--benchmarks=fillseq --num=5",
            "--benchmarks=fillseq --num=4 --key_size=20 --value_size=37 --compression_ratio=0.25",
            "--benchmarks=fillseq --num=3 --key_size=6 --value_size=16 --compression_ratio=0.9",
            "--benchmarks=fillseq --num=300 --key_size=9 --value_size=1 --compression_ratio=0.001",
            "--benchmarks=fillseq --num=4 --value_size=400000",
            "--benchmarks=fillrandom --num=12 --seed=42 --value_size=20",
            "--benchmarks=fillrandom --num=16 --seed=1234 --batch_size=4 --value_size=10",
            "--benchmarks=fillseq,overwrite --num=10 --writes=5 --seed=99 --value_size=8");

    private MakeVectors() {
    }

    /**
     * Writes the vectors.
     *
     * @param args the output file
     * @throws Exception when C++ db_bench is missing or fails
     */
    public static void main(String[] args) throws Exception {
        Path bin = CppDbBench.defaultBinary();
        List<String> out = new ArrayList<>();
        out.add("# Test vectors for dev.ferry.bench.dbbench (FormatVectorsTest): databases written by C++ db_bench");
        out.add("# (RocksDB " + CppDbBench.rocksVersion() + ", tools/db_bench_tool.cc, built by benchmarks/cpp-dbbench/build.sh and");
        out.add("# linked against rocksdbjni's librocksdbjni-linux64.so), listed in key order through RocksJava by");
        out.add("# MakeVectors (src/test). 'case' gives db_bench's flags; 'entry' gives key hex and value hex,");
        out.add("# or sha256:<hex> of values longer than 64 bytes.");
        Path tmp = Files.createTempDirectory("dbbench-vectors");
        int i = 0;
        for (String c : CASES) {
            Path db = tmp.resolve("case" + i++);
            List<String> a = new ArrayList<>(List.of(c.split(" ")));
            a.add("--db=" + db);
            a.add("--progress_reports=false");
            CppDbBench.Run r = CppDbBench.run(bin, a, null, System.err);
            if (r.exitCode() != 0) {
                throw new IllegalStateException("db_bench failed: " + c + "\n" + r.stdout());
            }
            out.add("case " + c);
            out.addAll(dump(db));
        }
        Files.write(Path.of(args[0]), out, StandardCharsets.UTF_8);
    }

    /**
     * Lists a database in the vectors' format.
     *
     * @param db the database
     * @return one "entry" line per key
     * @throws RocksDBException on read errors
     */
    static List<String> dump(Path db) throws RocksDBException, IOException {
        RocksDB.loadLibrary();
        List<String> lines = new ArrayList<>();
        try (Options o = new Options(); RocksDB d = RocksDB.openReadOnly(o, db.toString()); RocksIterator it = d.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                lines.add("entry " + HexFormat.of().formatHex(it.key()) + " " + value(it.value()));
            }
        }
        return lines;
    }

    /**
     * Formats a value as the vectors do.
     *
     * @param v the value
     * @return hex, or sha256:hex when longer than 64 bytes
     */
    static String value(byte[] v) {
        if (v.length <= 64) {
            return v.length == 0 ? "-" : HexFormat.of().formatHex(v);
        }
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(v));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
