/** An LMDB-only application on the module path: org.lmdbjava:native stays on the class path. */
module example.lmdb {
    requires dev.ferry;
}
