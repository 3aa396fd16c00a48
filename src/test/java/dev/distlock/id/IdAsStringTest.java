package dev.distlock.id;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;
import jakarta.json.bind.annotation.JsonbTypeAdapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link IdAsString} with a real JSON-B implementation (Yasson). */
class IdAsStringTest {

    public record Order(@JsonbTypeAdapter(IdAsString.class) Long id, String sku) {
    }

    public static class Invoice {
        @JsonbTypeAdapter(IdAsString.class)
        public Long id;
    }

    /** 2^53 + 1: the first whole number a JavaScript number cannot hold. */
    private static final long ABOVE_2_POW_53 = (1L << 53) + 1;
    private static Jsonb jsonb;

    @BeforeAll
    static void create() {
        jsonb = JsonbBuilder.create();
    }

    @AfterAll
    static void close() throws Exception {
        jsonb.close();
    }

    @Test
    void anIdIsWrittenAsAString() {
        assertEquals("{\"id\":\"734987234987234987\",\"sku\":\"A-1\"}", jsonb.toJson(new Order(734_987_234_987_234_987L, "A-1")));
    }

    @Test
    void anIdAbove2Pow53RoundTripsExactly() {
        Order read = jsonb.fromJson(jsonb.toJson(new Order(ABOVE_2_POW_53, "A-1")), Order.class);
        assertEquals(ABOVE_2_POW_53, read.id());

        Order largest = jsonb.fromJson(jsonb.toJson(new Order(Long.MAX_VALUE, "A-1")), Order.class);
        assertEquals(Long.MAX_VALUE, largest.id());
    }

    @Test
    void anIdIsReadFromAString() {
        assertEquals(ABOVE_2_POW_53, jsonb.fromJson("{\"id\":\"" + ABOVE_2_POW_53 + "\"}", Invoice.class).id);
    }

    @Test
    void anIdIsReadFromANumber() {
        assertEquals(ABOVE_2_POW_53, jsonb.fromJson("{\"id\":" + ABOVE_2_POW_53 + "}", Invoice.class).id);
        assertEquals(42L, jsonb.fromJson("{\"id\":42,\"sku\":\"A-1\"}", Order.class).id());
    }

    @Test
    void aMissingOrNullIdStaysNull() {
        assertNull(jsonb.fromJson("{\"id\":null}", Invoice.class).id);
        assertNull(jsonb.fromJson("{}", Invoice.class).id);
        assertEquals("{\"sku\":\"A-1\"}", jsonb.toJson(new Order(null, "A-1")));
    }

    @Test
    void aNonNumericStringIsAClearError() {
        JsonbException failure = assertThrows(JsonbException.class, () -> jsonb.fromJson("{\"id\":\"A-17\"}", Invoice.class));
        String messages = messages(failure);
        assertTrue(messages.contains("not an id") && messages.contains("'A-17'"), messages);
    }

    @Test
    void aFractionIsAClearError() {
        JsonbException failure = assertThrows(JsonbException.class, () -> jsonb.fromJson("{\"id\":1.5}", Invoice.class));
        String messages = messages(failure);
        assertTrue(messages.contains("not an id") && messages.contains("'1.5'"), messages);
    }

    private static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
