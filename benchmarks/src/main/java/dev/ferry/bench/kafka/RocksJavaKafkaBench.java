package dev.ferry.bench.kafka;

import dev.ferry.bench.BenchData;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Kafka Streams' built-in persistent key-value store ({@code Stores.persistentKeyValueStore}:
 * RocksJava over the rocksdbjni on the class path, Kafka's default RocksDB configuration), on the
 * data and workloads of {@link KafkaStoreBase}, beside {@link KafkaBench}.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.UNSAFE, BenchData.HEAP})
public class RocksJavaKafkaBench extends KafkaStoreBase {
    @Override
    KeyValueBytesStoreSupplier supplier() {
        return Stores.persistentKeyValueStore("bench");
    }
}
