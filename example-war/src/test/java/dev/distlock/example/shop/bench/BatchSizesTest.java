package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The batch figures of a storm and of its rounds together. */
class BatchSizesTest {

    @Test
    void sizesAreCountedAndTheDatabasePerOrderIsSpreadOverEveryOrderOfTheBatches() {
        BatchSizes sizes = BatchSizes.of(new int[] {30, 10, 20, 40}, 40, 50_000_000);
        assertEquals(new BatchSizes(4, 25.0, 20, 40, 40, 0.4, 0.5), sizes);
        assertEquals("| combined | 2 | 4 | 25.0, 20, 40, 40 | 0.40 | 0.500 |", sizes.markdown("combined", 2));
    }

    @Test
    void noBatchesIsNone() {
        assertEquals(BatchSizes.NONE, BatchSizes.of(new int[0], 0, 0));
        assertEquals(BatchSizes.NONE, BatchSizes.median(List.of(BatchSizes.NONE)));
    }

    @Test
    void roundsSumTheirBatchesAndTakeTheMedianOfTheRest() {
        BatchSizes median = BatchSizes.median(List.of(new BatchSizes(10, 20, 18, 30, 40, 0.2, 0.1),
                new BatchSizes(12, 25, 24, 32, 50, 0.3, 0.2), new BatchSizes(8, 30, 28, 34, 45, 0.4, 0.3), BatchSizes.NONE));
        assertEquals(new BatchSizes(30, 25, 24, 32, 50, 0.3, 0.2), median);
    }
}
