package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BarChartTest {

    @Test
    void theGridReachesTheTallestBarWithTheSmallestRoundStep() {
        assertEquals(250, BarChart.tickStep(1_058));
        assertEquals(200, BarChart.tickStep(985));
        assertEquals(500, BarChart.tickStep(1_300));
        assertEquals(100, BarChart.tickStep(500));
        assertEquals(1, BarChart.tickStep(0));
    }

    @Test
    void aStepOfTwoAndAHalfOnlyWhereItIsAWholeNumber() {
        assertEquals(5, BarChart.tickStep(11), "2.5 would be labelled 3");
        assertEquals(25, BarChart.tickStep(110));
    }
}
