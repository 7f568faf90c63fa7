/* The platform layer: loading shared libraries, finding the ones already loaded in the process,
 * comparing files. This is all the shim does that differs between operating systems; the engines
 * call only these functions for it. platform_posix.c implements them for Linux (glibc); a macOS or
 * Windows port is another platform_<os>.c chosen in native/CMakeLists.txt.
 *
 * Threading: every function may be called from any thread. plat_lib_error() reports the calling
 * thread's last failure. */
#ifndef FERRY_PLATFORM_H
#define FERRY_PLATFORM_H

#include "internal.h"

#include <stddef.h>

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
 * NULL when none does. Owned by the loader: valid while that object stays loaded. */
FERRY_HIDDEN const char *plat_global_sym_path(const char *name);

/* Are paths a and b the same file (both exist)? */
FERRY_HIDDEN int plat_same_file(const char *a, const char *b);

/* Make the entries of directory path durable (fsync of the directory on POSIX), so that files
 * created, renamed or removed in it stay so after an OS crash or power cut: a file's own fsync
 * does not promise its name. 0, or the errno value of a failed sync; a directory that cannot be
 * opened or synced at all (no permission, a file system without directory fsync) gives 0. */
FERRY_HIDDEN int plat_sync_dir(const char *path);

/* Make the data and size of the file at path durable (fsync). 0, or the errno value of a failure. */
FERRY_HIDDEN int plat_sync_file(const char *path);

#endif
