/** A RocksDB application on the module path: it requires rocksdbjni, which puts RocksJava in the module graph. */
module example.rocksdb {
    requires dev.ferry;
    requires rocksdbjni;
}
