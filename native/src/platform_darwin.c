/* The loader part of the platform layer (platform.h) for macOS: dlopen and friends, dyld's image
 * list for the loaded objects. macOS has neither dlinfo nor dladdr1 (platform_posix.c's way to
 * tell objects apart), so a reference carries its image's Mach-O header, found by file identity
 * among dyld's images; dladdr's dli_fbase then tells which image defines a symbol. The file, time
 * and lock part is platform_unix.c. */
#include "platform.h"

#include <dlfcn.h>
#include <mach-o/dyld.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct plat_lib {
    void *handle;               /* from dlopen */
    const void *header;         /* the image's Mach-O header, or NULL when not found */
};

/* The header of the loaded image at path: the image of that name (as plat_loaded_names gives it),
 * else the one that is the same file; NULL when there is none (or it is no file, such as a library
 * of the shared cache known by another name). */
static const void *image_header(const char *path)
{
    uint32_t n = _dyld_image_count();
    for (uint32_t i = 0; i < n; i++) {
        const char *name = _dyld_get_image_name(i);
        if (name && strcmp(name, path) == 0) {
            const void *h = _dyld_get_image_header(i);
            if (h) return h;
        }
    }
    struct stat want, st;
    if (stat(path, &want) != 0) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = _dyld_get_image_name(i);
        if (name && stat(name, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino) {
            const void *h = _dyld_get_image_header(i);
            if (h) return h;
        }
    }
    return NULL;
}

/* Wrap a dlopen handle (NULL stays NULL). */
static plat_lib *wrap(void *handle, const char *path)
{
    if (!handle) return NULL;
    plat_lib *lib = malloc(sizeof *lib);
    if (!lib) {
        dlclose(handle);
        return NULL;
    }
    lib->handle = handle;
    lib->header = image_header(path);
    return lib;
}

plat_lib *plat_lib_open(const char *path)
{
    return wrap(dlopen(path, RTLD_NOW | RTLD_LOCAL), path);
}

plat_lib *plat_lib_find(const char *path)
{
    return wrap(dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD), path);
}

void plat_lib_close(plat_lib *lib)
{
    if (!lib) return;
    dlclose(lib->handle);
    free(lib);
}

void *plat_lib_sym(plat_lib *lib, const char *name)
{
    return dlsym(lib->handle, name);
}

const char *plat_lib_error(void)
{
    const char *e = dlerror();
    return e ? e : "unknown error";
}

int plat_lib_same(plat_lib *a, plat_lib *b)
{
    if (a->header && b->header) return a->header == b->header;
    return a->handle == b->handle;
}

int plat_lib_defines(plat_lib *lib, const char *name)
{
    void *sym = dlsym(lib->handle, name);   /* the image or one of its dependencies */
    Dl_info info;
    if (!sym || !lib->header || !dladdr(sym, &info)) return 0;
    return info.dli_fbase == lib->header;
}

void plat_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

int plat_loaded_names(char ***names_out, size_t *n_out)
{
    uint32_t n = _dyld_image_count();   /* images may come and go meanwhile: a missing name is skipped */
    char **v = calloc(n ? n : 1, sizeof *v);
    if (!v) return FERRY_ENOMEM;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = _dyld_get_image_name(i);
        if (!name || !name[0]) continue;
        if (!(v[k] = strdup(name))) {
            plat_free_names(v, k);
            return FERRY_ENOMEM;
        }
        k++;
    }
    *names_out = v;
    *n_out = k;
    return FERRY_OK;
}
