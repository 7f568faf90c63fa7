/* The platform layer (platform.h) for Linux, glibc and musl: dlopen and friends, dl_iterate_phdr
 * for the list of loaded objects, link maps to tell objects apart, stat for file identity. Only
 * functions both C libraries have (dlinfo with RTLD_DI_LINKMAP included; not glibc's dladdr1). */
#define _GNU_SOURCE /* dladdr, dlinfo, RTLD_DEFAULT, dl_iterate_phdr */
#include "platform.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

plat_lib *plat_lib_open(const char *path)
{
    return (plat_lib *)dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

plat_lib *plat_lib_find(const char *path)
{
    return (plat_lib *)dlopen(path, RTLD_NOW | RTLD_NOLOAD);
}

void plat_lib_close(plat_lib *lib)
{
    if (lib) dlclose(lib);
}

void *plat_lib_sym(plat_lib *lib, const char *name)
{
    return dlsym(lib, name);
}

const char *plat_lib_error(void)
{
    const char *e = dlerror();
    return e ? e : "unknown error";
}

/* The link map of a dlopen handle, or NULL. */
static struct link_map *handle_map(plat_lib *lib)
{
    struct link_map *lm = NULL;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &lm) != 0) return NULL;
    return lm;
}

int plat_lib_same(plat_lib *a, plat_lib *b)
{
    return handle_map(a) == handle_map(b);
}

int plat_lib_defines(plat_lib *lib, const char *name)
{
    void *sym = dlsym(lib, name);
    struct link_map *lm = handle_map(lib);
    if (!sym || !lm || !lm->l_ld) return 0;
    /* The object sym lies in is lib's own when it is the one holding lib's dynamic section: dladdr
     * names each by its base address. */
    Dl_info at_sym, at_lib;
    if (!dladdr(sym, &at_sym) || !dladdr(lm->l_ld, &at_lib)) return 0;
    return at_sym.dli_fbase != NULL && at_sym.dli_fbase == at_lib.dli_fbase;
}

/* Names of the loaded objects, collected first so no dlopen runs inside dl_iterate_phdr. */
typedef struct name_list {
    char **v;
    size_t n, cap;
    int oom;
} name_list;

/* dl_iterate_phdr callback: record every named object. */
static int collect_name(struct dl_phdr_info *info, size_t size, void *arg)
{
    name_list *l = arg;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) { l->oom = 1; return 1; }
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(info->dlpi_name))) { l->oom = 1; return 1; }
    l->n++;
    return 0;
}

void plat_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

int plat_loaded_names(char ***names_out, size_t *n_out)
{
    name_list l = {0};
    dl_iterate_phdr(collect_name, &l);
    if (l.oom) {
        plat_free_names(l.v, l.n);
        return FERRY_ENOMEM;
    }
    *names_out = l.v;
    *n_out = l.n;
    return FERRY_OK;
}
