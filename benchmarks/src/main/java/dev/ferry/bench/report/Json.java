package dev.ferry.bench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for JMH result files and the reproductions' logs, over Jackson databind: objects become
 * {@link LinkedHashMap}s, arrays {@link ArrayList}s, every number a {@link Double} (the report's
 * arithmetic is in doubles), as the hand-written reader this replaces gave them.
 *
 * <p>Thread safety: thread-safe (the mapper is configured once and only read).
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    /**
     * Parses one JSON text.
     *
     * @param text the text
     * @return maps, lists, doubles, strings, booleans and nulls; an empty list for an empty text
     * @throws IllegalArgumentException if the text is not JSON
     */
    public static Object parse(String text) {
        if (text.isBlank()) {
            return List.of();
        }
        try {
            return doubles(MAPPER.readValue(text, Object.class));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("bad JSON: " + e.getOriginalMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Object doubles(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) m).entrySet()) {
                out.put(e.getKey(), doubles(e.getValue()));
            }
            return out;
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                out.add(doubles(x));
            }
            return out;
        }
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        return o;
    }

    /**
     * Writes a value made of maps, lists, doubles, strings, booleans and nulls as one JSON line.
     * A whole double under 1e15 is written without a fraction ({@code 3}, not {@code 3.0}).
     *
     * @param o the value
     * @return its JSON text and a newline
     */
    public static String write(Object o) {
        try {
            return MAPPER.writeValueAsString(wholes(o)) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Object wholes(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) m).entrySet()) {
                out.put(e.getKey(), wholes(e.getValue()));
            }
            return out;
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                out.add(wholes(x));
            }
            return out;
        }
        if (o instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
            return d.longValue();
        }
        if (o == null || o instanceof Number || o instanceof Boolean) {
            return o;
        }
        return o.toString();
    }

    /**
     * Appends a string as a JSON string literal.
     *
     * @param str the string
     * @param b where to
     */
    public static void quote(String str, StringBuilder b) {
        b.append('"');
        JsonStringEncoder.getInstance().quoteAsString(str, b);
        b.append('"');
    }
}
