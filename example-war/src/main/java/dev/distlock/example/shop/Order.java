package dev.distlock.example.shop;

import dev.distlock.id.IdAsString;
import jakarta.json.bind.annotation.JsonbTypeAdapter;

import java.time.OffsetDateTime;

/** An order as the API shows it; the 64-bit id is a JSON string, which JavaScript can hold. */
public record Order(@JsonbTypeAdapter(IdAsString.class) Long id, String sku, int quantity, OffsetDateTime placedAt) {
}
