package dev.ferry.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The interleaved runs' best times, per-round ratios and their spread. */
class RoundBestsTest {
    @Test
    void bestIsTheMinimumOverRoundsAndSpreadLeavesOutTheWarmUpRound() {
        RoundBests rb = new RoundBests();
        long[] floor = {100, 100, 100, 100};
        long[] ferry = {500, 110, 90, 100}; // round 0: not compiled yet
        for (int r = 0; r < floor.length; r++) {
            rb.add("floor", r, floor[r] + 5);
            rb.add("floor", r, floor[r]); // the round's best is kept
            rb.add("ferry-jni", r, ferry[r]);
        }
        assertEquals(90L, rb.best().get("ferry-jni"));
        assertEquals(List.of(5.0, 1.1, 0.9, 1.0), rb.roundRatios("ferry-jni"));
        assertEquals(0.1, rb.ratioSpread("ferry-jni"), 1e-12);
        assertEquals(0.0, rb.ratioSpread("floor"));
        assertEquals("5.000,1.100,0.900,1.000", rb.roundRatiosText("ferry-jni"));
    }

    @Test
    void spreadNeedsTwoRounds() {
        RoundBests rb = new RoundBests();
        rb.add("floor", 0, 100);
        rb.add("lmdbjava", 0, 150);
        assertTrue(Double.isNaN(rb.ratioSpread("lmdbjava")));
        rb.add("floor", 1, 100);
        rb.add("lmdbjava", 1, 170);
        assertEquals(0.1, rb.ratioSpread("lmdbjava"), 1e-12); // two rounds: both kept
    }
}
