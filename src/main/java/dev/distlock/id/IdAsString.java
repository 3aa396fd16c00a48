package dev.distlock.id;

import jakarta.json.bind.adapter.JsonbAdapter;

/**
 * Writes 64-bit ids as JSON strings: JavaScript numbers lose precision above 2^53, and Snowflake
 * ids are far above it. Reads both strings and numbers back.
 *
 * <pre>{@code
 * public record Order(@JsonbTypeAdapter(IdAsString.class) Long id, String sku) { }
 * // {"id":"734987234987234987","sku":"A-1"}
 * }</pre>
 */
public class IdAsString implements JsonbAdapter<Long, String> {

    @Override
    public String adaptToJson(Long id) {
        return id == null ? null : Long.toString(id);
    }

    @Override
    public Long adaptFromJson(String json) {
        if (json == null) {
            return null;
        }
        try {
            return Long.parseLong(json.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an id (a whole number up to 19 digits): '" + json + "'", e);
        }
    }
}
