/* The platform layer: loading shared libraries, finding the ones already loaded in the process,
 * comparing files, and the few file, time and lock calls that differ between operating systems.
 * This is all the shim does that differs between them; the engines call only these functions for
 * it. native/CMakeLists.txt picks the sources per system:
 *   Linux    platform_posix.c (loader: dlopen, dl_iterate_phdr, link maps) + platform_unix.c
 *   Darwin   platform_darwin.c (loader: dlopen, dyld's image list) + platform_unix.c
 *   Windows  platform_win32.c (everything: LoadLibraryExW, module list, UTF-16 paths)
 * Paths are UTF-8 everywhere (Java passes UTF-8); the Windows layer converts them to UTF-16.
 *
 * Threading: every function may be called from any thread. plat_lib_error() reports the calling
 * thread's last failure. */
#ifndef FERRY_PLATFORM_H
#define FERRY_PLATFORM_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A counted reference to a loaded library (a dlopen handle on POSIX). */
typedef struct plat_lib plat_lib;

/* Load the library at path: symbols resolved now, not made global. NULL on failure (see
 * plat_lib_error). A library already loaded gets one more reference. */
FERRY_HIDDEN plat_lib *plat_lib_open(const char *path);

/* A new reference to the library at path when it is already loaded; NULL, loading nothing, if not. */
FERRY_HIDDEN plat_lib *plat_lib_find(const char *path);

/* Drop one reference (the library may be unloaded when it was the last). */
FERRY_HIDDEN void plat_lib_close(plat_lib *lib);

/* The address of symbol name as lib resolves it (lib or its dependencies), or NULL. */
FERRY_HIDDEN void *plat_lib_sym(plat_lib *lib, const char *name);

/* Why the calling thread's last plat_lib_open failed ("unknown error" if it did not). */
FERRY_HIDDEN const char *plat_lib_error(void);

/* Do two references name the same loaded object? */
FERRY_HIDDEN int plat_lib_same(plat_lib *a, plat_lib *b);

/* Does lib itself, not one of its dependencies, define symbol name? */
FERRY_HIDDEN int plat_lib_defines(plat_lib *lib, const char *name);

/* The names of all objects loaded in the process (paths, as the loader knows them), for the
 * caller to open with plat_lib_find: *names_out a malloc'd array of *n_out malloc'd strings, freed
 * with plat_free_names. Returns FERRY_OK or FERRY_ENOMEM. */
FERRY_HIDDEN int plat_loaded_names(char ***names_out, size_t *n_out);

/* Free what plat_loaded_names returned; NULL entries are skipped. */
FERRY_HIDDEN void plat_free_names(char **names, size_t n);

/* The file name of the loaded object that provides symbol name to the process's global scope, or
 * NULL when none does. Owned by the loader: valid while that object stays loaded (Windows, which
 * has no global scope: the first module in load order that exports it; the name is a copy owned
 * by the calling thread, valid until its next call). */
FERRY_HIDDEN const char *plat_global_sym_path(const char *name);

/* Are paths a and b the same file (both exist)? */
FERRY_HIDDEN int plat_same_file(const char *a, const char *b);

/* ---- files: UTF-8 paths; errors are errno values (ENOENT, EEXIST, ENOTDIR, EACCES, ...) ---- */

/* Create the directory path (not its parents, mode 0755 where modes exist): 0 or an errno value,
 * EEXIST when something is already there. */
FERRY_HIDDEN int plat_mkdir(const char *path);

/* Remove an empty directory / a file: 0 or an errno value. */
FERRY_HIDDEN int plat_rmdir(const char *path);
FERRY_HIDDEN int plat_unlink(const char *path);

/* What path names (links followed): PLAT_DIR, PLAT_FILE (anything else that exists), or 0 when
 * it cannot be told, with the errno value in *err_out (ENOENT when nothing is there). */
#define PLAT_FILE 1
#define PLAT_DIR  2
FERRY_HIDDEN int plat_stat(const char *path, int *err_out);

/* What path itself is, links not followed: PLAT_DIR (a real directory), PLAT_FILE (a regular file),
 * PLAT_OTHER (a symbolic link, a Windows reparse point such as a junction, a device, a pipe, a
 * socket), or 0 as plat_stat. */
#define PLAT_OTHER 3
FERRY_HIDDEN int plat_lstat(const char *path, int *err_out);

/* fopen of a UTF-8 path. */
FERRY_HIDDEN FILE *plat_fopen(const char *path, const char *mode);

/* Is c a directory separator ('/', and '\' on Windows)? */
FERRY_HIDDEN int plat_is_sep(char c);

/* A directory listing: the names in it ("." and ".." may appear), each valid until the next call. */
typedef struct plat_dir plat_dir;
FERRY_HIDDEN plat_dir *plat_dir_open(const char *path, int *err_out);  /* NULL: *err_out says why */
FERRY_HIDDEN const char *plat_dir_next(plat_dir *d);                   /* NULL at the end */
FERRY_HIDDEN void plat_dir_close(plat_dir *d);

/* A system error code that an engine returned (LMDB returns errno values on Unix; on Windows mostly
 * Win32 error codes, and a few C runtime errno values of its own: ENOENT EIO ENOMEM EACCES EBUSY
 * EINVAL ENOSPC): the errno value that fits it (0 when none does), and its text (in a buffer of
 * the calling thread, valid until its next call). */
FERRY_HIDDEN int plat_sys_errno(int code);
FERRY_HIDDEN const char *plat_sys_error_text(int code);

/* ---- time, threads, memory ---- */

/* Sleep about us microseconds (at least a millisecond where the system has no finer sleep). */
FERRY_HIDDEN void plat_sleep_us(uint32_t us);

/* Let another thread run. */
FERRY_HIDDEN void plat_yield(void);

/* A monotonic clock in milliseconds (from an arbitrary start). */
FERRY_HIDDEN int64_t plat_now_ms(void);

/* aligned_alloc (align a power of two, size a multiple of it), freed with plat_aligned_free only
 * (Windows has no aligned_alloc: _aligned_malloc's blocks need _aligned_free). */
FERRY_HIDDEN void *plat_aligned_alloc(size_t align, size_t size);
FERRY_HIDDEN void plat_aligned_free(void *p);

/* The size of a virtual-memory page (0 if unknown). */
FERRY_HIDDEN size_t plat_page_size(void);

/* Lock m, waiting at most ms milliseconds: 0, ETIMEDOUT, or another errno value. */
FERRY_HIDDEN int plat_mutex_lock_ms(pthread_mutex_t *m, uint32_t ms);

/* Initialise a read-write lock that lets a waiting writer in before new readers where the system
 * offers the choice (glibc); elsewhere the system's default (macOS prefers writers already). */
FERRY_HIDDEN int plat_rwlock_init_writer_first(pthread_rwlock_t *l);

/* Make the entries of directory path durable (fsync of the directory on POSIX), so that files
 * created, renamed or removed in it stay so after an OS crash or power cut: a file's own fsync
 * does not promise its name. 0, or the errno value of a failed sync; a directory that cannot be
 * opened or synced at all (no permission, a file system without directory fsync) gives 0. */
FERRY_HIDDEN int plat_sync_dir(const char *path);

/* Make the data and size of the file at path durable (fsync). 0, or the errno value of a failure. */
FERRY_HIDDEN int plat_sync_file(const char *path);

#endif
