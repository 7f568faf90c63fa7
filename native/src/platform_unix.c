/* The file, time and lock part of the platform layer (platform.h) for the Unix systems (Linux with
 * glibc or musl, macOS): POSIX calls, with the two differences between them kept here. The loader
 * part is platform_posix.c (Linux) or platform_darwin.c (macOS). */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np (glibc); dladdr, RTLD_DEFAULT */
#include "platform.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int plat_mkdir(const char *path)
{
    return mkdir(path, 0755) == 0 ? 0 : errno;
}

int plat_rmdir(const char *path)
{
    return rmdir(path) == 0 ? 0 : errno;
}

int plat_unlink(const char *path)
{
    return unlink(path) == 0 ? 0 : errno;
}

int plat_stat(const char *path, int *err_out)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (err_out) *err_out = errno;
        return 0;
    }
    return S_ISDIR(st.st_mode) ? PLAT_DIR : PLAT_FILE;
}

int plat_lstat(const char *path, int *err_out)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (err_out) *err_out = errno;
        return 0;
    }
    return S_ISDIR(st.st_mode) ? PLAT_DIR : S_ISREG(st.st_mode) ? PLAT_FILE : PLAT_OTHER;
}

FILE *plat_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

int plat_is_sep(char c)
{
    return c == '/';
}

struct plat_dir {
    DIR *d;
};

plat_dir *plat_dir_open(const char *path, int *err_out)
{
    plat_dir *pd = malloc(sizeof *pd);
    if (!pd) {
        if (err_out) *err_out = ENOMEM;
        return NULL;
    }
    if (!(pd->d = opendir(path))) {
        if (err_out) *err_out = errno;
        free(pd);
        return NULL;
    }
    return pd;
}

const char *plat_dir_next(plat_dir *pd)
{
    struct dirent *e = readdir(pd->d);
    return e ? e->d_name : NULL;
}

void plat_dir_close(plat_dir *pd)
{
    if (!pd) return;
    closedir(pd->d);
    free(pd);
}

int plat_sys_errno(int code)
{
    return code;
}

const char *plat_sys_error_text(int code)
{
    return strerror(code);
}

void plat_sleep_us(uint32_t us)
{
    struct timespec t = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    nanosleep(&t, NULL);
}

void plat_yield(void)
{
    sched_yield();
}

int64_t plat_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void *plat_aligned_alloc(size_t align, size_t size)
{
    void *p = NULL;   /* posix_memalign: aligned_alloc is macOS 10.15+ */
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

void plat_aligned_free(void *p)
{
    free(p);
}

size_t plat_page_size(void)
{
    long n = sysconf(_SC_PAGESIZE);
    return n > 0 ? (size_t)n : 0;
}

int plat_mutex_lock_ms(pthread_mutex_t *m, uint32_t ms)
{
#ifdef __APPLE__
    /* macOS has no pthread_mutex_timedlock: try, then poll every 100 us until the time is up */
    int64_t until = plat_now_ms() + ms;
    for (;;) {
        int rc = pthread_mutex_trylock(m);
        if (rc != EBUSY) return rc;
        if (plat_now_ms() >= until) return ETIMEDOUT;
        plat_sleep_us(100);
    }
#else
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    return pthread_mutex_timedlock(m, &until);
#endif
}

int plat_rwlock_init_writer_first(pthread_rwlock_t *l)
{
#ifdef __GLIBC__
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    int rc = pthread_rwlock_init(l, &attr);
    pthread_rwlockattr_destroy(&attr);
    return rc;
#else
    return pthread_rwlock_init(l, NULL);
#endif
}

/* fsync of a directory (its entries) and of a file; the power-cut test (docs/testing.md) found both missing. */
int plat_sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    int rc = fsync(fd) == 0 ? 0 : errno;
    close(fd);
    return rc == EINVAL || rc == EBADF || rc == ENOTSUP ? 0 : rc;
}

int plat_sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int rc = fsync(fd) == 0 ? 0 : errno;
    close(fd);
    return rc;
}

/* The object that gives name to the process (dladdr of what dlsym(RTLD_DEFAULT) finds), and file identity: the same on
 * Linux and macOS. */
const char *plat_global_sym_path(const char *name)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    Dl_info info;
    if (!sym || !dladdr(sym, &info) || !info.dli_fname) return NULL;
    return info.dli_fname;
}

int plat_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
