package dev.distlock.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeNameTest {

    @Test
    void aServersNameIsKeptAsItIs() {
        assertEquals("shop-1", NodeName.check("shop-1"));
        assertEquals("Payara Server 2 (eu-west)", NodeName.check("Payara Server 2 (eu-west)"));
        assertEquals("x".repeat(64), NodeName.check("x".repeat(64)));
    }

    @Test
    void whatCannotBeKeptIsRefusedSayingWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeName.check("")).getMessage().contains("must not be empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeName.check("x".repeat(65))).getMessage()
                .contains("at most 64 characters (it had 65)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeName.check(" shop")).getMessage()
                .contains("must not start or end with a space"));
        IllegalArgumentException lineBreak = assertThrows(IllegalArgumentException.class, () -> NodeName.check("shop\n1"));
        assertTrue(lineBreak.getMessage().contains("control characters or line breaks"), lineBreak.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeName.check("shop\t1")).getMessage()
                .contains("line breaks"));
    }

    @Test
    void thisHostHasANameThatCanBeKept() {
        String host = NodeName.ofThisHost();
        assertEquals(host, NodeName.check(host));
        assertEquals(host, NodeName.ofThisHost(), "looked up once");
    }
}
