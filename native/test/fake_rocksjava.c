/* Stands in for a RocksJava library built without RocksDB's C API, as rocksdbjni's Windows one is:
 * it exports the RocksJava function by which the shim recognises RocksJava's library, and no
 * rocksdb_* function. test_rocksdb checks that attaching it is refused as not supported. */
__attribute__((visibility("default"))) void Java_org_rocksdb_RocksDB_closeDatabase(void)
{
}
