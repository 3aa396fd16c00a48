package dev.distlock.example.shop;

import dev.distlock.id.IdAsString;
import jakarta.json.bind.annotation.JsonbTypeAdapter;

import java.time.OffsetDateTime;

/**
 * An order as the API shows it: the 64-bit id as a JSON string, which JavaScript can hold, and the
 * order number a person reads, e.g. {@code 20261124-000042}.
 */
public record Order(@JsonbTypeAdapter(IdAsString.class) Long id, String number, String sku, int quantity, OffsetDateTime placedAt) {
}
