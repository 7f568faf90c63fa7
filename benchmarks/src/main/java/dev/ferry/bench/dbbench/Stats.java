package dev.ferry.bench.dbbench;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * One benchmark thread's counters, and their merge, the way db_bench keeps and reports them:
 * operations done, bytes, the thread's elapsed time, a latency histogram per operation type
 * (with {@code --histogram}), a message ("(N of M found)"), and the progress line
 * ({@code ... finished N ops}) printed to stderr at growing intervals.
 *
 * <p>The merged report follows db_bench: {@code micros/op} is the sum of every thread's elapsed
 * time divided by all operations (time per operation per thread), {@code ops/sec} is all
 * operations over the wall time from the first thread's start to the merge. A thread marked
 * {@link #excludeFromMerge()} (readwhilewriting's writer) is left out.
 *
 * <p>Thread safety: not thread-safe; each thread owns its Stats until it is merged.
 */
public final class Stats implements dev.ferry.bench.store.KvStore.EntryCounter {
    /** Operation types, named as db_bench prints them. */
    public enum Op {
        /** a get or a scanned entry */
        READ("read"),
        /** a put */
        WRITE("write"),
        /** a seek */
        SEEK("seek");

        final String label;

        Op(String label) {
            this.label = label;
        }
    }

    private final boolean histogram;
    private final boolean progress;
    private final PrintStream err;
    private long startMicros;
    private long finishMicros;
    private double seconds;
    private long done;
    private long nextReport;
    private long bytes;
    private long lastOpFinish;
    private final Map<Op, Histogram> hist = new EnumMap<>(Op.class);
    private String message = "";
    private boolean exclude;

    /**
     * Starts counting now.
     *
     * @param histogram whether to time every operation
     * @param progress whether to print progress lines
     * @param err where progress lines go
     */
    public Stats(boolean histogram, boolean progress, PrintStream err) {
        this.histogram = histogram;
        this.progress = progress;
        this.err = err;
        start();
    }

    /** @return microseconds on a monotonic clock */
    static long nowMicros() {
        return System.nanoTime() / 1000;
    }

    /** Starts (again) from zero, now. */
    public void start() {
        nextReport = 100;
        hist.clear();
        done = 0;
        bytes = 0;
        seconds = 0;
        startMicros = nowMicros();
        finishMicros = startMicros;
        lastOpFinish = startMicros;
        message = "";
        exclude = false;
    }

    /** Stops the clock. */
    public void stop() {
        finishMicros = nowMicros();
        seconds = (finishMicros - startMicros) * 1e-6;
    }

    /** Leaves this thread out of the merged report. */
    public void excludeFromMerge() {
        exclude = true;
    }

    /** Restarts the latency clock, so time spent waiting (rate limiting) is not counted. */
    public void resetLastOpTime() {
        lastOpFinish = nowMicros();
    }

    /**
     * Appends to the message, with a space between parts.
     *
     * @param msg the text
     */
    public void addMessage(String msg) {
        message = withSpace(message, msg);
    }

    private static String withSpace(String s, String msg) {
        if (msg.isEmpty()) {
            return s;
        }
        return s.isEmpty() ? msg : s + " " + msg;
    }

    /**
     * Counts bytes read or written.
     *
     * @param n the bytes
     */
    public void addBytes(long n) {
        bytes += n;
    }

    /** One scanned entry read: {@code finishedOps(1, READ)}. */
    @Override
    public void entryRead() {
        finishedOps(1, Op.READ);
    }

    /**
     * Counts finished operations; with {@code --histogram}, records the time since the last call.
     *
     * @param n how many
     * @param op their type
     */
    public void finishedOps(long n, Op op) {
        if (histogram) {
            long now = nowMicros();
            hist.computeIfAbsent(op, k -> new Histogram()).add(now - lastOpFinish);
            lastOpFinish = now;
        }
        done += n;
        if (done >= nextReport && progress) {
            if (nextReport < 1000) {
                nextReport += 100;
            } else if (nextReport < 5000) {
                nextReport += 500;
            } else if (nextReport < 10000) {
                nextReport += 1000;
            } else if (nextReport < 50000) {
                nextReport += 5000;
            } else if (nextReport < 100000) {
                nextReport += 10000;
            } else if (nextReport < 500000) {
                nextReport += 50000;
            } else {
                nextReport += 100000;
            }
            err.printf(Locale.ROOT, "... finished %d ops%30s\r", done, "");
            err.flush();
        }
    }

    /** @return operations done */
    public long done() {
        return done;
    }

    /**
     * Merges threads' stats as db_bench does.
     *
     * @param threads the threads' stats, stopped
     * @return the merged stats
     */
    public static Stats merge(Iterable<Stats> threads) {
        Stats m = new Stats(false, false, System.err);
        for (Stats o : threads) {
            if (o.exclude) {
                continue;
            }
            for (Map.Entry<Op, Histogram> e : o.hist.entrySet()) {
                m.hist.computeIfAbsent(e.getKey(), k -> new Histogram()).merge(e.getValue());
            }
            m.done += o.done;
            m.bytes += o.bytes;
            m.seconds += o.seconds;
            m.startMicros = Math.min(m.startMicros, o.startMicros);
            m.finishMicros = Math.max(m.finishMicros, o.finishMicros);
            if (m.message.isEmpty()) {
                m.message = o.message;
            }
        }
        return m;
    }

    /**
     * The figures of a merged report.
     *
     * @param name benchmark name
     * @param microsPerOp thread-time per operation
     * @param opsPerSec operations per wall second
     * @param seconds wall seconds
     * @param operations operations (at least 1)
     * @param mbPerSec MiB per wall second, or NaN when no bytes were counted
     * @param message the message, e.g. "(1000 of 1000 found)"
     * @param histograms the histograms by op type label
     */
    public record Result(String name, double microsPerOp, long opsPerSec, double seconds, long operations,
            double mbPerSec, String message, Map<String, Histogram> histograms) {
        /** @return db_bench's result line */
        public String line() {
            String extra = Double.isNaN(mbPerSec) ? "" : String.format(Locale.ROOT, "%6.1f MB/s", mbPerSec);
            extra = withSpace(extra, message);
            return String.format(Locale.ROOT, "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations;%s%s", name,
                    microsPerOp, opsPerSec, seconds, operations, extra.isEmpty() ? "" : " ", extra);
        }
    }

    /**
     * Computes the report of merged stats.
     *
     * @param name the benchmark
     * @return the figures
     */
    public Result result(String name) {
        long ops = Math.max(done, 1);
        double elapsed = (finishMicros - startMicros) * 1e-6;
        double mb = bytes > 0 ? (bytes / 1048576.0) / elapsed : Double.NaN;
        Map<String, Histogram> h = new java.util.LinkedHashMap<>();
        for (Map.Entry<Op, Histogram> e : hist.entrySet()) {
            h.put(e.getKey().label, e.getValue());
        }
        return new Result(name, seconds * 1e6 / ops, (long) (ops / elapsed), elapsed, ops, mb, message, h);
    }

    /**
     * Prints the report as db_bench does: the result line, then with {@code --histogram}
     * "Microseconds per read:" and the histogram.
     *
     * @param r the figures
     * @param out where to print
     */
    public static void print(Result r, PrintStream out) {
        out.println(r.line());
        for (Map.Entry<String, Histogram> e : r.histograms().entrySet()) {
            out.printf(Locale.ROOT, "Microseconds per %s:%n%s%n", e.getKey(), e.getValue());
        }
        out.flush();
    }

    /**
     * Repeated runs of one benchmark ({@code name[X<n>]}), summarized as db_bench does: after each
     * run from the second on, the mean ops/sec with a 95% confidence half-width (1.96 standard
     * errors, sample standard deviation), and at the end the mean and the median.
     */
    public static final class Combined {
        private final java.util.List<Double> ops = new java.util.ArrayList<>();
        private final java.util.List<Double> mbs = new java.util.ArrayList<>();

        /**
         * Adds a run.
         *
         * @param r the run's figures
         */
        public void add(Result r) {
            ops.add(r.operations() / r.seconds());
            if (!Double.isNaN(r.mbPerSec())) {
                mbs.add(r.mbPerSec());
            }
        }

        private static double avg(java.util.List<Double> d) {
            double a = 0;
            for (double x : d) {
                a += x;
            }
            return a / d.size();
        }

        private static double ci95(java.util.List<Double> d) {
            double a = avg(d);
            double sq = 0;
            for (double x : d) {
                sq += (x - a) * (x - a);
            }
            return 1.959964 * Math.sqrt(sq / (d.size() - 1)) / Math.sqrt(d.size());
        }

        private static double median(java.util.List<Double> d) {
            java.util.List<Double> s = new java.util.ArrayList<>(d);
            java.util.Collections.sort(s);
            int mid = s.size() / 2;
            return s.size() % 2 == 1 ? s.get(mid) : (s.get(mid) + s.get(mid - 1)) / 2;
        }

        /**
         * Prints the running summary (from two runs on).
         *
         * @param name the benchmark
         * @param out where to print
         */
        public void report(String name, PrintStream out) {
            if (ops.size() < 2) {
                return;
            }
            if (mbs.size() == ops.size()) {
                out.printf(Locale.ROOT, "%s [AVG %d runs] : %d (\u00b1 %d) ops/sec; %6.1f (\u00b1 %.1f) MB/sec%n", name, ops.size(),
                        (int) avg(ops), (int) ci95(ops), avg(mbs), ci95(mbs));
            } else {
                out.printf(Locale.ROOT, "%s [AVG %d runs] : %d (\u00b1 %d) ops/sec%n", name, ops.size(), (int) avg(ops), (int) ci95(ops));
            }
        }

        /**
         * Prints the final summary (from two runs on).
         *
         * @param name the benchmark
         * @param out where to print
         */
        public void reportFinal(String name, PrintStream out) {
            if (ops.size() < 2) {
                return;
            }
            double a = avg(ops);
            double msPerOp = a > 0 ? 1000.0 / a : 0;
            out.println();
            if (mbs.size() == ops.size()) {
                out.printf(Locale.ROOT, "%s [AVG    %d runs] : %d (\u00b1 %d) ops/sec; %.3f ms/op; %6.1f (\u00b1 %.1f) MB/sec%n"
                        + "%s [MEDIAN %d runs] : %d ops/sec; %6.1f MB/sec%n", name, ops.size(), (int) a, (int) ci95(ops), msPerOp,
                        avg(mbs), ci95(mbs), name, ops.size(), (int) median(ops), median(mbs));
            } else {
                out.printf(Locale.ROOT, "%s [AVG    %d runs] : %d (\u00b1 %d) ops/sec; %.3f ms/op%n%s [MEDIAN %d runs] : %d ops/sec%n",
                        name, ops.size(), (int) a, (int) ci95(ops), msPerOp, name, ops.size(), (int) median(ops));
            }
        }
    }
}
