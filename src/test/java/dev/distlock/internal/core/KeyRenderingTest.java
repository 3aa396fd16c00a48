package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.LockMode;
import dev.distlock.DistributedLocks;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a bound template turns one call's arguments into lock keys. */
class KeyRenderingTest {

    @Test
    void parameterByName() {
        assertEquals(List.of("stock:A-1"), render("reserve", "stock:{sku}", "A-1", 3));
    }

    @Test
    void parameterByPosition() {
        assertEquals(List.of("stock:A-1:3"), render("reserve", "stock:{0}:{1}", "A-1", 3));
    }

    @Test
    void propertyPathThroughRecords() {
        SampleShop.Order order = new SampleShop.Order(new SampleShop.Customer("c-42"), 1);
        assertEquals(List.of("customer:c-42"), render("place", "customer:{order.customer.id}", order));
    }

    @Test
    void propertyPathThroughGetters() {
        SampleShop.Account account = new SampleShop.Account(1234L, true);
        assertEquals(List.of("account:1234:true"), render("open", "account:{account.number}:{account.active}", account));
    }

    @Test
    void lockKeyParametersAreAppendedWithColons() {
        assertEquals(List.of("shelf:A-1:7"), render("restock", "shelf", "north", "A-1", 5, 7L));
    }

    @Test
    void withoutTemplateTheMethodIsTheKey() {
        assertEquals(List.of(SampleShop.class.getName() + ".restock:A-1:7"), renderAll("restock", List.of(), "north", "A-1", 5, 7L));
    }

    @Test
    void everyTemplateIsOneKey() {
        assertEquals(List.of("stock:A-1", "audit"), renderAll("reserve", List.of("stock:{sku}", "audit"), "A-1", 3));
    }

    @Test
    void valuesAreEncodedSoTheyCannotReachIntoAnotherKey() {
        assertEquals(List.of("stock:a%3Ab%7Bc%7D%25"), render("reserve", "stock:{sku}", "a:b{c}%", 1));
        assertNotEquals(render("reserve", "stock:{sku}", "a:b", 1), render("reserve", "stock:{sku}", "a%3Ab", 1));
    }

    @Test
    void nullKeyParameterIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> render("reserve", "stock:{sku}", null, 1));
        assertTrue(e.getMessage().contains("'sku'") && e.getMessage().contains("is null"), e.getMessage());
    }

    @Test
    void blankKeyParameterIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> render("reserve", "stock:{sku}", "  ", 1));
        assertTrue(e.getMessage().contains("'sku'") && e.getMessage().contains("is blank"), e.getMessage());
    }

    @Test
    void nullLockKeyParameterIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> render("restock", "shelf", "north", null, 5, 7L));
        assertTrue(e.getMessage().contains("'sku'"), e.getMessage());
    }

    @Test
    void nullAlongAPropertyPathIsRejectedByName() {
        SampleShop.Order order = new SampleShop.Order(null, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> render("place", "customer:{order.customer.id}", order));
        assertTrue(e.getMessage().contains("'order.customer.id'"), e.getMessage());
    }

    @Test
    void programmaticKeysMustNotBeNullOrBlank() {
        DistributedLocks locks = RedisLocks.builder(() -> {
            throw new AssertionError("no Redis needed to reject a key");
        }).build();
        assertThrows(IllegalArgumentException.class, () -> locks.exclusive((String) null));
        assertThrows(IllegalArgumentException.class, () -> locks.exclusive("stock", " "));
        assertThrows(IllegalArgumentException.class, () -> locks.read());
    }

    private static List<String> render(String methodName, String template, Object... arguments) {
        return renderAll(methodName, List.of(template), arguments);
    }

    private static List<String> renderAll(String methodName, List<String> templates, Object... arguments) {
        MethodKeys keys = MethodKeys.bind(templates, SampleShop.method(methodName), LockMode.EXCLUSIVE,
                "SampleShop." + methodName + "(...)");
        return keys.render(arguments);
    }
}
