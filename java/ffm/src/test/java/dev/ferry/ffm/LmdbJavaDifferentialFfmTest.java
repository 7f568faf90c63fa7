package dev.ferry.ffm;

import dev.ferry.LmdbJavaDifferentialTest;

/** The lmdbjava differential tests with Ferry's FFM binding. */
class LmdbJavaDifferentialFfmTest extends LmdbJavaDifferentialTest {
    @Override
    protected String binding() {
        return "ffm";
    }
}
