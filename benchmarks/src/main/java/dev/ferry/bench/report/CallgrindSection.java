package dev.ferry.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's instruction-count section, from {@code callgrind.txt} (what {@code benchmarks/callgrind} prints:
 * per engine and operation, the shim's instructions per operation and the engine's own call's, counted by
 * valgrind's callgrind). Counts do not move with the machine's load, so this section says, on any machine,
 * how far Ferry's RocksDB scan is from the floor's loop in work done, and so why a scan row of the
 * interleaved table sits above the floor when it does.
 *
 * <p>Thread safety: stateless.
 */
final class CallgrindSection {
    private CallgrindSection() {
    }

    /** One line of the table: engine, operation, instructions per operation of the shim and of the engine's own call. */
    record Count(String engine, String op, double shim, double engineCall) {
        double ratio() {
            return engineCall == 0 ? Double.NaN : shim / engineCall;
        }
    }

    /**
     * @param dir a results directory
     * @return the section's Markdown, or "" when the directory has no {@code callgrind.txt}
     * @throws IOException on I/O failure
     */
    static String markdown(Path dir) throws IOException {
        Path p = dir.resolve("callgrind.txt");
        return Files.exists(p) ? markdown(Files.readAllLines(p)) : "";
    }

    /**
     * @param lines the lines of {@code callgrind.txt}
     * @return the parsed counts, in file order; lines that are not counts are skipped
     */
    static List<Count> parse(List<String> lines) {
        List<Count> counts = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 5 || line.startsWith("#") || !f[0].matches("rocksdb|lmdb")) {
                continue;
            }
            try {
                counts.add(new Count(f[0], f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3])));
            } catch (NumberFormatException e) {
                // the header line or a stray one
            }
        }
        return counts;
    }

    /**
     * @param lines the lines of {@code callgrind.txt}
     * @return the section's Markdown, or "" when no line is a count
     */
    static String markdown(List<String> lines) {
        List<Count> counts = parse(lines);
        if (counts.isEmpty()) {
            return "";
        }
        String header = lines.stream().filter(l -> l.startsWith("# callgrind:")).findFirst().orElse("").replaceFirst("^# ", "");
        StringBuilder sb = new StringBuilder("## Instructions per operation (callgrind)\n\n")
                .append("Counted by valgrind's callgrind (`benchmarks/callgrind`, docs/benchmarks.md): the shim's call against the "
                        + "engine's own call doing the same work (a get, one entry of a forward or reverse scan, a put), on the same "
                        + "engine binary. The count does not depend on the machine's load. `scan`/`rscan` use the engine's default "
                        + "pages (RocksDB: copies), `pscan`/`prscan` pointer pages.")
                .append(header.isEmpty() ? "" : " Run: " + header + ".")
                .append("\n\n| engine | operation | shim instructions | engine instructions | shim / engine |\n|---|---|---:|---:|---:|\n");
        for (Count c : counts) {
            sb.append("| ").append(c.engine).append(" | ").append(c.op).append(" | ").append(fmt(c.shim, 0)).append(" | ")
                    .append(fmt(c.engineCall, 0)).append(" | ").append(fmt(c.ratio(), 3)).append(" |\n");
        }
        sb.append(whyNot(counts));
        return sb.toString();
    }

    /** Why the RocksDB scan rows sit where they do against the floor, from the counts. */
    static String whyNot(List<Count> counts) {
        StringBuilder sb = new StringBuilder();
        for (Count c : counts) {
            if (!c.engine.equals("rocksdb") || !(c.op.equals("scan") || c.op.equals("rscan")) || Double.isNaN(c.ratio())) {
                continue;
            }
            String dir = c.op.equals("scan") ? "forward" : "reverse";
            if (c.ratio() > 1.0) {
                sb.append("- RocksDB scan-").append(dir).append(": Ferry's page fill runs ").append(fmt(c.shim - c.engineCall, 0))
                        .append(" instructions per entry more than RocksDB's own iterator loop (").append(fmt(c.ratio(), 3))
                        .append("x): the copy of key and value into the page and the page's bookkeeping. Where a scan's time follows "
                                + "its instructions, that is the least gap to the floor to expect, so a scan row at or below 1.00x the "
                                + "floor needs fewer instructions per entry first (issue 46).\n");
            } else {
                sb.append("- RocksDB scan-").append(dir).append(": Ferry's page fill runs no more instructions per entry than RocksDB's "
                        + "own loop (").append(fmt(c.ratio(), 3)).append("x): a scan row above the floor here is time, not work.\n");
            }
        }
        return sb.length() == 0 ? "\n" : "\nWhat the counts say about the scan rows' distance from the floor:\n\n" + sb + "\n";
    }

    private static String fmt(double v, int digits) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,." + digits + "f", v);
    }
}
