/* JNI entry points of dev.ferry.bench.NativeFloor: one call runs a whole workload (see floor.h),
 * so the crossing costs nothing measurable per entry. Addresses and handles arrive as longs. */
#include <jni.h>
#include <stdint.h>

#include "floor.h"

#define P(a) ((void *)(intptr_t)(a))

/* NativeFloor.attach0(int engine, long libPath) */
JNIEXPORT jint JNICALL Java_dev_ferry_bench_NativeFloor_attach0(JNIEnv *env, jclass cls, jint engine, jlong path)
{
    return floor_attach(engine, P(path), 0);
}

/* NativeFloor.open0(int engine, long path, long cacheBytes, long mapSize, int readOnly) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_open0(JNIEnv *env, jclass cls, jint engine, jlong path,
                                                                jlong cache, jlong map, jint ro)
{
    return (jlong)(intptr_t)floor_open(engine, P(path), cache, map, ro);
}

/* NativeFloor.close0(long db) */
JNIEXPORT jint JNICALL Java_dev_ferry_bench_NativeFloor_close0(JNIEnv *env, jclass cls, jlong db)
{
    floor_close(P(db));
    return 0;
}

/* NativeFloor.scan0(long db, int reverse, long countOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_scan0(JNIEnv *env, jclass cls, jlong db, jint reverse, jlong count)
{
    return floor_scan(P(db), reverse, P(count));
}

/* NativeFloor.seeks0(long db, long keys, int n, int klen, int nexts, long countOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_seeks0(JNIEnv *env, jclass cls, jlong db, jlong keys, jint n,
                                                              jint klen, jint nexts, jlong count)
{
    return floor_seeks(P(db), P(keys), n, klen, nexts, P(count));
}

/* NativeFloor.gets0(long db, long keys, int n, int klen, long missingOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_gets0(JNIEnv *env, jclass cls, jlong db, jlong keys, jint n,
                                                                jint klen, jlong missing)
{
    return floor_gets(P(db), P(keys), n, klen, P(missing));
}

/* NativeFloor.getsFresh0(long db, long keys, int n, int klen, long missingOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_getsFresh0(JNIEnv *env, jclass cls, jlong db, jlong keys, jint n,
                                                                jint klen, jlong missing)
{
    return floor_gets_fresh(P(db), P(keys), n, klen, P(missing));
}

/* NativeFloor.getsCopy0(long db, long keys, int n, int klen, int fresh, long dst, int cap, long missingOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_getsCopy0(JNIEnv *env, jclass cls, jlong db, jlong keys, jint n,
                                                                jint klen, jint fresh, jlong dst, jint cap, jlong missing)
{
    return floor_gets_copy(P(db), P(keys), n, klen, fresh, P(dst), cap, P(missing));
}

/* NativeFloor.puts0(long db, long keys, int n, int klen, long val, int vlen, int batch) */
JNIEXPORT jint JNICALL Java_dev_ferry_bench_NativeFloor_puts0(JNIEnv *env, jclass cls, jlong db, jlong keys, jint n,
                                                               jint klen, jlong val, jint vlen, jint batch)
{
    return floor_puts(P(db), P(keys), n, klen, P(val), vlen, batch);
}

/* NativeFloor.scanSplits0(long db, long bounds, int nsplits, int threads, long countsOut) */
JNIEXPORT jlong JNICALL Java_dev_ferry_bench_NativeFloor_scanSplits0(JNIEnv *env, jclass cls, jlong db, jlong bounds,
                                                                     jint nsplits, jint threads, jlong counts)
{
    return floor_scan_splits(P(db), P(bounds), nsplits, threads, P(counts));
}

/* NativeFloor.noop0() */
JNIEXPORT jint JNICALL Java_dev_ferry_bench_NativeFloor_noop0(JNIEnv *env, jclass cls)
{
    return floor_noop();
}
