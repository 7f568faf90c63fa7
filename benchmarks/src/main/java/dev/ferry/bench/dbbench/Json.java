package dev.ferry.bench.dbbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One flat JSON object, built field by field and written on one line (the result files are
 * JSON Lines: one object per benchmark result). Written by Jackson; a non-finite double is
 * written as {@code null}.
 *
 * <p>Thread safety: not thread-safe.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Map<String, Object> fields = new LinkedHashMap<>();

    /**
     * Sets a field.
     *
     * @param key the name
     * @param value a String, Number, Boolean or null
     * @return this
     */
    Json put(String key, Object value) {
        fields.put(key, value instanceof Double d && !Double.isFinite(d) ? null
                : value == null || value instanceof Number || value instanceof Boolean ? value : value.toString());
        return this;
    }

    @Override
    public String toString() {
        try {
            return MAPPER.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
