package dev.distlock.internal.core;

import dev.distlock.LockMode;
import dev.distlock.LockDefinitionException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A template that does not fit its method is rejected when it is bound (at deployment), with a
 * message naming the method, the template and the problem.
 */
class KeyTemplateErrorsTest {

    @Test
    void unknownParameterName() {
        assertRejected("reserve", "stock:{skuu}", "{skuu} names no parameter; the parameters are [sku, quantity]");
    }

    @Test
    void positionOutOfRange() {
        assertRejected("reserve", "stock:{2}", "refers to parameter position 2 but the method has 2 parameter(s)");
    }

    @Test
    void unclosedPlaceholder() {
        assertRejected("reserve", "stock:{sku", "placeholder opened at index 6 is not closed");
    }

    @Test
    void placeholderOpenedInsideAnother() {
        assertRejected("reserve", "stock:{s{ku}", "placeholder opened at index 6 is not closed");
    }

    @Test
    void strayClosingBrace() {
        assertRejected("reserve", "stock:sku}", "'}' at index 9 closes no placeholder");
    }

    @Test
    void percentInLiteralTextIsReserved() {
        // Literal "a%3Ab" would otherwise be the same key as "a" + encoded value ":b".
        assertRejected("reserve", "stock%3A{sku}", "'%' at index 5 is reserved for encoded values");
    }

    @Test
    void emptyPlaceholder() {
        assertRejected("reserve", "stock:{}", "empty placeholder {}");
    }

    @Test
    void blankTemplate() {
        // Would otherwise fail every call with "the lock key is empty", or lock the literal " ".
        assertRejected("reserve", "", "blank");
        assertRejected("reserve", "  ", "blank");
    }

    @Test
    void unknownProperty() {
        assertRejected("place", "order:{order.customer.idx}", "Customer has no property 'idx'");
    }

    @Test
    void emptyPropertyName() {
        assertRejected("place", "order:{order..id}", "empty property name");
    }

    @Test
    void typeWithoutToString() {
        assertRejected("inspect", "item:{opaque}", "Opaque does not override toString()");
    }

    @Test
    void array() {
        assertRejected("reserveAll", "stock:{skus}", "an array (String[]) is no lock key value");
    }

    @Test
    void lockKeyParameterOfATypeWithoutToString() {
        // No template to name here: the parameter is named instead.
        LockDefinitionException e = assertThrows(LockDefinitionException.class,
                () -> KeyTemplate.parameter(SampleShop.method("inspect"), 0, "SampleShop.inspect(Opaque)"));
        assertMentions(e, "@LockKey parameter opaque", "SampleShop.inspect(Opaque)", "does not override toString()");
    }

    private static void assertRejected(String methodName, String template, String problem) {
        String site = "SampleShop." + methodName + "(...)";
        LockDefinitionException e = assertThrows(LockDefinitionException.class,
                () -> MethodKeys.bind(List.of(template), SampleShop.method(methodName), LockMode.EXCLUSIVE, site));
        assertMentions(e, "@Locked.value", site, "\"" + template + "\"", problem);
    }

    private static void assertMentions(Exception e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "message lacks [" + part + "]: " + e.getMessage());
        }
    }
}
