/* floor: the out-of-process native floor. Runs the benchmark workloads in C over the engine
 * library given on the command line and prints one line per workload:
 *   floor engine=... workload=... variant=... value_size=... ops=... best_ns_per_op=... median_ns_per_op=... checksum=...
 *
 *   floor read  <rocksdb|lmdb> <engine-lib> <data-dir> <value-size> [reps]   scans (forward, reverse), 100k random gets
 *   floor write <rocksdb|lmdb> <engine-lib> <scratch-dir> <value-size> <n> [reps]  seq/random puts, batches of 1000
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floor.h"

#define KEY 16
#define CACHE ((int64_t)2 << 30)
#define GETS 100000

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *engine, const char *workload, const char *variant, int vsize, long long ops,
                   double *ns, int reps, long long checksum)
{
    qsort(ns, reps, sizeof *ns, cmp_double);
    printf("floor engine=%s workload=%s variant=%s value_size=%d ops=%lld reps=%d best_ns_per_op=%.2f median_ns_per_op=%.2f checksum=%lld\n",
           engine, workload, variant, vsize, ops, reps, ns[0] / ops, ns[reps / 2] / ops, checksum);
    fflush(stdout);
}

static void key_of(uint8_t *dst, long long i)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%016lld", i);
    memcpy(dst, tmp, KEY);
}

static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: floor read <rocksdb|lmdb> <engine-lib> <data-dir> <value-size> [reps]\n"
                        "       floor write <rocksdb|lmdb> <engine-lib> <scratch-dir> <value-size> <n> [reps]\n");
        return 2;
    }
    const char *mode = argv[1], *ename = argv[2], *lib = argv[3], *dir = argv[4];
    int vsize = atoi(argv[5]);
    int engine = strcmp(ename, "rocksdb") == 0 ? FLOOR_ROCKSDB : strcmp(ename, "lmdb") == 0 ? FLOOR_LMDB : 0;
    if (!engine) { fprintf(stderr, "floor: engine must be rocksdb or lmdb\n"); return 2; }
    if (floor_attach(engine, lib, 1) != 0) return 1;

    if (strcmp(mode, "read") == 0) {
        int reps = argc > 6 ? atoi(argv[6]) : 5;
        if (reps < 1) reps = 1;
        double ns[64];
        if (reps > 64) reps = 64;
        floor_db *db = floor_open(engine, dir, CACHE, 0, 1);
        if (!db) return 1;
        int64_t n = 0, sum = floor_scan(db, 0, &n); /* warm the cache */
        if (n == 0) { fprintf(stderr, "floor: %s is empty\n", dir); return 1; }
        for (int dirn = 0; dirn < 2; dirn++) {
            int64_t c = 0;
            for (int r = 0; r < reps; r++) {
                double t0 = now_ns();
                sum = floor_scan(db, dirn, &c);
                ns[r] = now_ns() - t0;
            }
            report(ename, "scan", dirn ? "reverse" : "forward", vsize, c, ns, reps, sum);
        }
        uint8_t *keys = malloc((size_t)GETS * KEY);
        for (int i = 0; i < GETS; i++) key_of(keys + (size_t)i * KEY, (long long)(rnd() % (uint64_t)n));
        int64_t missing = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            sum = floor_gets(db, keys, GETS, KEY, &missing);
            ns[r] = now_ns() - t0;
        }
        if (missing) fprintf(stderr, "floor: %lld keys missing\n", (long long)missing);
        report(ename, "get", "random", vsize, GETS, ns, reps, sum);
        free(keys);
        floor_close(db);
        return 0;
    }
    if (strcmp(mode, "write") == 0) {
        if (argc < 7) { fprintf(stderr, "floor write: missing <n>\n"); return 2; }
        int n = atoi(argv[6]);
        int reps = argc > 7 ? atoi(argv[7]) : 3;
        if (reps < 1) reps = 1;
        if (reps > 64) reps = 64;
        double ns[64];
        uint8_t *keys = malloc((size_t)n * KEY), *val = malloc(vsize > 0 ? vsize : 1);
        for (int i = 0; i < vsize; i++) val[i] = (uint8_t)rnd();
        const char *variants[] = { "seq", "random", "batch" };
        for (int w = 0; w < 3; w++) {
            for (int r = 0; r < reps; r++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s-%s-%d", dir, ename, variants[w], r);
                char cmd[8400];
                snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", path, path);
                if (system(cmd) != 0) return 1;
                for (int i = 0; i < n; i++)
                    key_of(keys + (size_t)i * KEY, w == 1 ? (long long)(rnd() % 1000000000000000ull) : i);
                floor_db *db = floor_open(engine, path, CACHE, (int64_t)4 << 30, 0);
                if (!db) return 1;
                double t0 = now_ns();
                if (floor_puts(db, keys, n, KEY, val, vsize, w == 2 ? 1000 : 1) != 0) return 1;
                ns[r] = now_ns() - t0;
                floor_close(db);
                snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
                if (system(cmd) != 0) return 1;
            }
            report(ename, w == 2 ? "batch" : "put", variants[w], vsize, n, ns, reps, 0);
        }
        free(keys);
        free(val);
        return 0;
    }
    fprintf(stderr, "floor: mode must be read or write\n");
    return 2;
}
