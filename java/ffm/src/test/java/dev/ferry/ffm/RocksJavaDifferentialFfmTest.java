package dev.ferry.ffm;

import dev.ferry.RocksJavaDifferentialTest;

/** The RocksJava differential tests with Ferry's FFM binding. */
class RocksJavaDifferentialFfmTest extends RocksJavaDifferentialTest {
    @Override
    protected String binding() {
        return "ffm";
    }
}
