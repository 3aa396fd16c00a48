package dev.distlock.zookeeper;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Lock names as node names and back: what the listing reads is the name that was locked. */
class NodeNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"distlock:lock:stock:MUG", "a/b", "100%", "tab\there", "\u0000", "é€😀", ".", "..", "%2F", "x%"})
    void decodingGivesTheNameBack(String name) {
        String node = NodeNames.encode(name);
        assertFalse(node.contains("/"), node);
        assertEquals(name, NodeNames.decode(node));
    }
}
