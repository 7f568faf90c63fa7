package dev.ferry.bench.dbbench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One flat JSON object, built field by field and written on one line (the result files are
 * JSON Lines: one object per benchmark result).
 *
 * <p>Thread safety: not thread-safe.
 */
final class Json {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    /**
     * Sets a field.
     *
     * @param key the name
     * @param value a String, Number, Boolean or null
     * @return this
     */
    Json put(String key, Object value) {
        fields.put(key, value);
        return this;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            dev.ferry.bench.report.Json.quote(e.getKey(), b);
            b.append(':');
            Object v = e.getValue();
            if (v == null) {
                b.append("null");
            } else if (v instanceof Double d) {
                b.append(Double.isFinite(d) ? d.toString() : "null");
            } else if (v instanceof Number || v instanceof Boolean) {
                b.append(v);
            } else {
                dev.ferry.bench.report.Json.quote(v.toString(), b);
            }
        }
        return b.append('}').toString();
    }
}
