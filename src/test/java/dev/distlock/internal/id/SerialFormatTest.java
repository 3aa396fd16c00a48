package dev.distlock.internal.id;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SerialFormatTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 24);

    @Test
    void theDefaultWritesTheDateAndSixDigits() {
        SerialFormat format = SerialFormat.parse(SerialFormat.DEFAULT);
        assertEquals("20261124-000042", format.format(DAY, 42));
        assertEquals("20261124-1234567", format.format(DAY, 1_234_567), "more digits than the width: never cut");
    }

    @Test
    void literalTextDatePartsAndWidthsAreWrittenAsGiven() {
        assertEquals("INV/2026/11-24.00007", SerialFormat.parse("INV/{date:yyyy}/{date:MM-dd}.{serial:5}").format(DAY, 7));
        assertEquals("26112442", SerialFormat.parse("{date:yyMMdd}{serial}").format(DAY, 42));
        assertEquals("42@2026-328", SerialFormat.parse("{serial}@{date:yyyy-DDD}").format(DAY, 42));
    }

    @Test
    void aFormatThatCouldWriteTwoNumbersAlikeIsRefused() {
        assertRefused("{date:MM-dd}-{serial}", "would repeat");             // no year: every year repeats
        assertRefused("{date:yyyy-MM}-{serial}", "would repeat");           // no day
        assertRefused("{date:yyyyMd}{serial}", "changes its width");        // 2026111 + 1 = 2026 1 11 or 2026 11 1
        assertRefused("{date:yyyy-D}-{serial}", "changes its width");       // day of the year: 1 to 3 digits
    }

    @Test
    void malformedTemplatesNameWhatIsWrong() {
        assertRefused("{date:yyyyMMdd}", "needs a {date:...} part and a {serial} part");
        assertRefused("{serial:6}", "needs a {date:...} part and a {serial} part");
        assertRefused("{date:yyyyMMdd}-{serial}-{serial}", "more than one {serial}");
        assertRefused("{date:yyyyMMdd}-{serial:0}", "width is a whole number from 1 to 18");
        assertRefused("{date:yyyyMMdd}-{serial:x}", "width is a whole number from 1 to 18");
        assertRefused("{date:yyyyMMdd}-{count}", "unknown part {count}");
        assertRefused("{date:yyyyMMdd}-{serial", "never closed");
        assertRefused("{date:yyyyMMdd}}-{serial}", "'}' without '{'");
        assertRefused("{date:yyyyMMdd{}-{serial}", "not a date pattern");
        assertRefused("  ", "needs a {date:...} part and a {serial} part");
    }

    private static void assertRefused(String template, String reason) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> SerialFormat.parse(template), template);
        assertTrue(refused.getMessage().contains(reason), () -> template + ": expected '" + reason + "' in: " + refused.getMessage());
    }
}
