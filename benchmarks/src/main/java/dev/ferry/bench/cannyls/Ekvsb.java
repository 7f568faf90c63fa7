package dev.ferry.bench.cannyls;

import dev.ferry.bench.report.Json;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The file formats of ekvsb (the benchmark tool of the CannyLS benchmark), read and written the way
 * ekvsb 0.0.13 does, so one workload file drives ekvsb's backends and Ferry's, and one summary
 * computation reads every result file:
 * <ul>
 * <li>workload: a JSON array of tasks {@code {"PUT":{"key":"k","value":{"size":N}}}},
 * {@code {"GET":{"key":"k"}}}, {@code {"DELETE":{"key":"k"}}}; values are given by size only (the
 * runner fills them with random bytes before it starts the clock);</li>
 * <li>result: a JSON array of {@code {"seqno","key","method","start_time","elapsed","exists","error"}}
 * (times in seconds, {@code exists} true, false or null for unknown, {@code error} null or the
 * failure);</li>
 * <li>summary: what {@code ekvsb summary} prints: oks, errors, existence counts, elapsed (the sum of
 * the tasks' times), ops (tasks per second of that sum) and the latency min, median
 * ({@code sorted[n/2]}), p95 ({@code sorted[n*95/100]}), p99 ({@code sorted[n*99/100]}) and max.</li>
 * </ul>
 *
 * <p>Thread safety: stateless.
 */
public final class Ekvsb {
    private Ekvsb() {
    }

    /** A task's operation, as ekvsb names it. */
    public enum Method {
        /** Write a value of the task's size. */
        PUT,
        /** Read a key. */
        GET,
        /** Delete a key. */
        DELETE
    }

    /**
     * One task of a workload.
     *
     * @param method the operation
     * @param key the key (ekvsb's keys are ASCII strings)
     * @param valueSize bytes of the value for PUT, else 0
     */
    public record Task(Method method, String key, int valueSize) {
    }

    /**
     * One task's outcome.
     *
     * @param seqno its place in the workload
     * @param key its key
     * @param method its operation
     * @param startTime seconds from the run's start to the task's start
     * @param elapsed the task's seconds
     * @param exists whether the key existed, null when the store does not say
     * @param error null, or what failed
     */
    public record Result(int seqno, String key, Method method, double startTime, double elapsed, Boolean exists, String error) {
    }

    /**
     * What {@code ekvsb summary} prints for one result file.
     *
     * @param oks tasks without an error
     * @param errors tasks with one
     * @param exists tasks whose key existed
     * @param absents tasks whose key did not
     * @param unknowns tasks that do not say
     * @param elapsed the sum of the tasks' seconds
     * @param ops tasks per second of that sum
     * @param min fastest task, seconds
     * @param median {@code sorted[n/2]}
     * @param p95 {@code sorted[n*95/100]}
     * @param p99 {@code sorted[n*99/100]}
     * @param max slowest task
     */
    public record Summary(int oks, int errors, long exists, long absents, long unknowns, double elapsed, double ops,
            double min, double median, double p95, double p99, double max) {
    }

    /**
     * Reads a workload file.
     *
     * @param file the file
     * @return its tasks in order
     * @throws IOException when it cannot be read
     * @throws IllegalArgumentException when it is not an ekvsb workload
     */
    public static List<Task> readWorkload(Path file) throws IOException {
        return parseWorkload(Files.readString(file));
    }

    /**
     * Parses a workload.
     *
     * @param json the workload's JSON
     * @return its tasks in order
     * @throws IllegalArgumentException when it is not an ekvsb workload
     */
    public static List<Task> parseWorkload(String json) {
        List<Task> tasks = new ArrayList<>();
        for (Object o : list(Json.parse(json), "workload")) {
            Map<String, Object> t = map(o, "task");
            if (t.size() != 1) {
                throw new IllegalArgumentException("a task has one operation: " + t.keySet());
            }
            Map.Entry<String, Object> e = t.entrySet().iterator().next();
            Method m;
            try {
                m = Method.valueOf(e.getKey());
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("unknown task '" + e.getKey() + "' (ekvsb has PUT, GET, DELETE)");
            }
            Map<String, Object> body = map(e.getValue(), m.name());
            String key = (String) body.get("key");
            if (key == null) {
                throw new IllegalArgumentException(m + " without a key");
            }
            int size = 0;
            if (m == Method.PUT) {
                Object sz = map(body.get("value"), "PUT value").get("size");
                if (!(sz instanceof Double d) || d < 0 || d > Integer.MAX_VALUE - 64) {
                    throw new IllegalArgumentException("PUT value size " + sz);
                }
                size = d.intValue();
            }
            tasks.add(new Task(m, key, size));
        }
        return tasks;
    }

    /**
     * Writes a workload the way ekvsb does.
     *
     * @param tasks the tasks
     * @return the JSON text
     */
    public static String workloadJson(List<Task> tasks) {
        List<Object> out = new ArrayList<>();
        for (Task t : tasks) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("key", t.key());
            if (t.method() == Method.PUT) {
                body.put("value", Map.of("size", (double) t.valueSize()));
            }
            out.add(Map.of(t.method().name(), body));
        }
        return Json.write(out);
    }

    /**
     * Generates a workload shaped like {@code ekvsb workload put|get|delete --count --population-size
     * --key-size --value-size --seed --shuffle}: a population of random keys of {@code keySize}
     * characters from {@code [0-9a-zA-Z]} drawn from {@code seed}, shuffled with {@code shuffle} when
     * it is not null, cut to {@code count}. Used when ekvsb is not available (tests, or a machine where
     * it did not build): the keys differ from ekvsb's own (another random generator), the shape does not.
     *
     * @param method the tasks' operation
     * @param count tasks
     * @param population keys drawn
     * @param keySize characters per key
     * @param valueSize bytes per value (PUT)
     * @param seed the keys' seed
     * @param shuffle the shuffle's seed, or null for none
     * @return the tasks
     */
    public static List<Task> generate(Method method, int count, int population, int keySize, int valueSize, long seed, Long shuffle) {
        if (count > population) {
            throw new IllegalArgumentException("count " + count + " > population " + population);
        }
        final String chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        Random r = new Random(seed);
        List<Task> tasks = new ArrayList<>(population);
        char[] k = new char[keySize];
        for (int i = 0; i < population; i++) {
            for (int j = 0; j < keySize; j++) {
                k[j] = chars.charAt(r.nextInt(chars.length()));
            }
            tasks.add(new Task(method, new String(k), method == Method.PUT ? valueSize : 0));
        }
        if (shuffle != null) {
            Collections.shuffle(tasks, new Random(shuffle));
        }
        return new ArrayList<>(tasks.subList(0, count));
    }

    /**
     * Reads a result file (ekvsb's or {@link Replay}'s).
     *
     * @param file the file
     * @return its results
     * @throws IOException when it cannot be read
     */
    public static List<Result> readResults(Path file) throws IOException {
        return parseResults(Files.readString(file));
    }

    /**
     * Parses results.
     *
     * @param json the results' JSON
     * @return its results in order
     * @throws IllegalArgumentException when it is not an ekvsb result array
     */
    public static List<Result> parseResults(String json) {
        List<Result> out = new ArrayList<>();
        for (Object o : list(Json.parse(json), "results")) {
            Map<String, Object> r = map(o, "result");
            Object err = r.get("error");
            out.add(new Result(num(r, "seqno").intValue(), (String) r.get("key"), Method.valueOf((String) r.get("method")),
                    num(r, "start_time"), num(r, "elapsed"), (Boolean) r.get("exists"),
                    err == null ? null : err instanceof String s ? s : Json.write(err).trim()));
        }
        return out;
    }

    /**
     * Writes one result as ekvsb writes it (one element of the result array).
     *
     * @param r the result
     * @param w where to
     * @throws IOException when writing fails
     */
    static void writeResult(Result r, Writer w) throws IOException {
        w.write(String.format(Locale.ROOT, "{\"seqno\":%d,\"key\":%s,\"method\":\"%s\",\"start_time\":%s,\"elapsed\":%s,\"exists\":%s,\"error\":%s}",
                r.seqno(), Json.write(r.key()).trim(), r.method(), seconds(r.startTime()), seconds(r.elapsed()),
                r.exists() == null ? "null" : r.exists().toString(), r.error() == null ? "null" : Json.write(r.error()).trim()));
    }

    private static String seconds(double s) {
        return Double.toString(s);
    }

    /**
     * Computes what {@code ekvsb summary} prints.
     *
     * @param results one run's results
     * @return the summary
     */
    public static Summary summarize(List<Result> results) {
        int errors = 0;
        long exists = 0;
        long absents = 0;
        long unknowns = 0;
        double elapsed = 0;
        double[] times = new double[results.size()];
        for (int i = 0; i < times.length; i++) {
            Result r = results.get(i);
            errors += r.error() == null ? 0 : 1;
            if (r.exists() == null) {
                unknowns++;
            } else if (r.exists()) {
                exists++;
            } else {
                absents++;
            }
            elapsed += r.elapsed();
            times[i] = r.elapsed();
        }
        java.util.Arrays.sort(times);
        int n = times.length;
        return new Summary(n - errors, errors, exists, absents, unknowns, elapsed, n / elapsed,
                n == 0 ? 0 : times[0], n == 0 ? 0 : times[n / 2], n == 0 ? 0 : times[Math.min(n - 1, n * 95 / 100)],
                n == 0 ? 0 : times[Math.min(n - 1, n * 99 / 100)], n == 0 ? 0 : times[n - 1]);
    }

    /**
     * Parses the JSON {@code ekvsb summary} prints.
     *
     * @param json its output
     * @return the summary
     */
    public static Summary parseSummary(String json) {
        Map<String, Object> s = map(Json.parse(json), "summary");
        Map<String, Object> e = map(s.get("existence"), "existence");
        Map<String, Object> l = map(s.get("latency"), "latency");
        return new Summary(num(s, "oks").intValue(), num(s, "errors").intValue(), num(e, "exists").longValue(),
                num(e, "absents").longValue(), num(e, "unknowns").longValue(), num(s, "elapsed"), num(s, "ops"),
                num(l, "min"), num(l, "median"), num(l, "p95"), num(l, "p99"), num(l, "max"));
    }

    /**
     * Writes a result array to a file, streaming.
     *
     * @param file the file
     * @param results the results
     * @throws IOException when writing fails
     */
    static void writeResults(Path file, List<Result> results) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("[\n");
            for (int i = 0; i < results.size(); i++) {
                w.write(i == 0 ? "  " : ",\n  ");
                writeResult(results.get(i), w);
            }
            w.write("\n]\n");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o, String what) {
        if (!(o instanceof List)) {
            throw new IllegalArgumentException("an ekvsb " + what + " is a JSON array");
        }
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String what) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("an ekvsb " + what + " is a JSON object");
        }
        return (Map<String, Object>) o;
    }

    private static Double num(Map<String, Object> m, String k) {
        Object v = m.get(k);
        if (!(v instanceof Double d)) {
            throw new IllegalArgumentException("'" + k + "' is not a number: " + v);
        }
        return d;
    }
}
