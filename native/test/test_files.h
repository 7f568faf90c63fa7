/* File helpers of the native tests, on the shim's platform layer (src/platform.h) so that they run
 * on Windows too (no rm -rf or cp through system()). Static: each test program includes this once. */
#ifndef FERRY_TEST_FILES_H
#define FERRY_TEST_FILES_H

#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Remove path and everything under it (rm -rf; links removed, not followed); 0 when nothing is left. */
static inline int test_rm_tree(const char *path)
{
    int kind = plat_lstat(path, NULL);
    if (kind == 0) return 0;
    if (kind == PLAT_FILE) return plat_unlink(path);
    if (kind == PLAT_OTHER) return plat_unlink(path) == 0 ? 0 : plat_rmdir(path); /* a link: not what it names */
    plat_dir *d = plat_dir_open(path, NULL);
    if (!d) return -1;
    int rc = 0;
    for (const char *n; (n = plat_dir_next(d)) != NULL;) {
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
        size_t len = strlen(path) + strlen(n) + 2;
        char *child = malloc(len);
        if (!child) { rc = -1; break; }
        snprintf(child, len, "%s/%s", path, n);
        if (test_rm_tree(child) != 0) rc = -1;
        free(child);
    }
    plat_dir_close(d);
    return rc ? rc : plat_rmdir(path);
}

/* rm -rf path && mkdir -p path (its parent must exist); 0 on success. */
static inline int test_fresh_dir(const char *path)
{
    if (test_rm_tree(path) != 0) return -1;
    return plat_mkdir(path);
}

/* cp from to; 0 on success. */
static inline int test_copy_file(const char *from, const char *to)
{
    FILE *in = plat_fopen(from, "rb"), *out = in ? plat_fopen(to, "wb") : NULL;
    int rc = in && out ? 0 : -1;
    char buf[65536];
    for (size_t n; rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0;)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in && ferror(in)) rc = -1;
    if (out && fclose(out) != 0) rc = -1;
    if (in) fclose(in);
    return rc;
}

#endif
