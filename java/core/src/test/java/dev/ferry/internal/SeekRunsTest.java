package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SeekRunsTest {
    @Test
    void startsAtOneEntry() {
        assertEquals(1, new SeekRuns().firstFill());
    }

    @Test
    void learnsARepeatedRunLength() {
        SeekRuns r = new SeekRuns();
        for (int i = 0; i < 40; i++) {
            r.ended(11);
        }
        assertEquals(11, r.firstFill());
    }

    @Test
    void longRunsCountAsTheCap() {
        SeekRuns r = new SeekRuns();
        for (int i = 0; i < 40; i++) {
            r.ended(1_000_000);
        }
        assertEquals(SeekRuns.MAX, r.firstFill());
    }

    @Test
    void returnsToOneEntryForPointLookupsAndEmptySeeks() {
        SeekRuns r = new SeekRuns();
        for (int i = 0; i < 40; i++) {
            r.ended(64);
        }
        for (int i = 0; i < 40; i++) {
            r.ended(i % 2 == 0 ? 1 : 0);
        }
        assertEquals(1, r.firstFill());
    }

    @Test
    void oneLongRunMovesTheHintOnlyPartway() {
        SeekRuns r = new SeekRuns();
        r.ended(1_000_000);
        int f = r.firstFill();
        assertTrue(f > 1 && f < SeekRuns.MAX, "first fill after one long run: " + f);
    }
}
