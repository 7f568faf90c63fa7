/*
 * cutfs: a FUSE pass-through file system that simulates a power cut, for Ferry's durability tests.
 *
 *   cutfs [--torn SEED] [--quiet] BACKING MOUNTPOINT
 *
 * Every operation goes to BACKING at once (so reads, including reads through a memory map, see the
 * current state), and cutfs remembers how to undo whatever is not durable yet:
 *
 *  - data: the first time a page (4 KiB) of a file is written, truncated away or punched after the
 *    file's last fsync, its old content (its durable content) is saved in memory, with the file's
 *    durable size. fsync or fdatasync of the file, or a write through a descriptor opened with
 *    O_SYNC/O_DSYNC, makes the file's data and size durable: the saved pages are dropped.
 *  - names: create, mkdir, mknod, symlink, link, rename and unlink/rmdir are logged in order; an
 *    entry is durable once every directory it changed has been fsynced (a directory opened and
 *    fsynced; a rename across directories needs both). An unlinked or overwritten file is moved to
 *    a graveyard (BACKING.cutfs-grave, beside BACKING) until its removal is durable, so it can come
 *    back.
 *
 * When the file system is unmounted (fusermount3 -u), the power is cut: every file's saved pages
 * and durable size are written back, then the logged namespace changes that are not durable are
 * undone, newest first. BACKING then holds exactly the durable state, and cutfs exits.
 * With --torn SEED, each unsynced page is instead kept with probability 1/2 (chosen by SEED): a
 * torn write, as a disk that wrote some of its cached pages before the power went.
 *
 * Not modelled: metadata other than size (modes, times), a file fsync making its own new name
 * durable (ext4 and xfs do it in practice; POSIX does not promise it), reordering or tearing inside
 * a page, a device that lies about fsync. FUSE gives no range with fsync, so a write through an
 * O_DSYNC descriptor makes the whole file durable (LMDB writes its meta page that way, after
 * fdatasync of the data pages, so the difference does not show there).
 *
 * Single-threaded (-s); the kernel sees a plain file system (no writeback cache: each write(2)
 * reaches cutfs before it returns; pages stored through a shared writable mapping reach cutfs when
 * the kernel writes them back, at the latest at msync/fsync, which then follows).
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#define PG 4096
#define GRAVE ".cutfs-grave" /* suffix of the graveyard, a sibling of BACKING */

static char *backing;            /* absolute path of BACKING */
static int torn;                 /* keep a random half of unsynced pages at the cut */
static uint64_t rng_state;
static int quiet;

static void say(const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cutfs: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The backing path of a path of the mount ("/a/b" -> BACKING/a/b). */
static int bpath(const char *path, char *out)
{
    if ((size_t)snprintf(out, PATH_MAX, "%s%s", backing, path) >= PATH_MAX) return -ENAMETOOLONG;
    return 0;
}

/* ------------------------------------------------------------------ data: saved pages per file */

typedef struct dirty {
    ino_t ino;
    int fd;          /* O_RDWR descriptor of the backing file, kept until the cut or the next fsync */
    off_t dsize;     /* durable size */
    size_t cap, n;   /* open-addressing table of page index -> saved page (NULL: beyond dsize) */
    int64_t *keys;
    char **pages;
    struct dirty *next;
} dirty;

static dirty *dirties;

static dirty *dirty_find(ino_t ino, dirty ***link)
{
    dirty **l = &dirties;
    for (; *l; l = &(*l)->next)
        if ((*l)->ino == ino) {
            if (link) *link = l;
            return *l;
        }
    return NULL;
}

static void dirty_free(dirty *d)
{
    for (size_t i = 0; i < d->cap; i++)
        if (d->keys[i] >= 0) free(d->pages[i]);
    free(d->keys);
    free(d->pages);
    close(d->fd);
    free(d);
}

static size_t slot(dirty *d, int64_t idx)
{
    size_t h = (size_t)((uint64_t)idx * 0x9E3779B97F4A7C15ULL) & (d->cap - 1);
    while (d->keys[h] >= 0 && d->keys[h] != idx) h = (h + 1) & (d->cap - 1);
    return h;
}

static int grow(dirty *d)
{
    size_t ncap = d->cap ? d->cap * 2 : 64;
    int64_t *ok = d->keys;
    char **op = d->pages;
    size_t ocap = d->cap;
    d->keys = malloc(ncap * sizeof *d->keys);
    d->pages = calloc(ncap, sizeof *d->pages);
    if (!d->keys || !d->pages) return -ENOMEM;
    for (size_t i = 0; i < ncap; i++) d->keys[i] = -1;
    d->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (ok[i] >= 0) {
            size_t s = slot(d, ok[i]);
            d->keys[s] = ok[i];
            d->pages[s] = op[i];
        }
    free(ok);
    free(op);
    return 0;
}

/* The record of the file open as fd, made (with the file's current size as durable size) if new. */
static int dirty_get(int fd, dirty **out)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return -errno;
    dirty *d = dirty_find(st.st_ino, NULL);
    if (!d) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        int rw = open(proc, O_RDWR | O_CLOEXEC);
        if (rw < 0) return -errno;
        d = calloc(1, sizeof *d);
        if (!d) { close(rw); return -ENOMEM; }
        d->ino = st.st_ino;
        d->fd = rw;
        d->dsize = st.st_size;
        if (grow(d)) { dirty_free(d); return -ENOMEM; }
        d->next = dirties;
        dirties = d;
    }
    *out = d;
    return 0;
}

/* Saves the durable content of pages [first, last] of the file open as fd, where not saved yet.
 * with_new: also record pages beyond the durable size (written pages, which --torn may keep). */
static int save_pages(int fd, off_t from, off_t to, int with_new)
{
    if (to <= from) return 0;
    dirty *d = NULL;
    int rc = dirty_get(fd, &d);
    if (rc) return rc;
    for (int64_t p = from / PG; p <= (to - 1) / PG; p++) {
        int beyond = (off_t)p * PG >= d->dsize;
        if (beyond && !with_new) continue;
        if ((d->n + 1) * 2 > d->cap && grow(d)) return -ENOMEM;
        size_t s = slot(d, p);
        if (d->keys[s] == p) continue;
        char *page = NULL;
        if (!beyond) {
            page = calloc(1, PG);
            if (!page) return -ENOMEM;
            if (pread(d->fd, page, PG, (off_t)p * PG) < 0) { free(page); return -errno; }
        }
        d->keys[s] = p;
        d->pages[s] = page;
        d->n++;
    }
    return 0;
}

/* fsync: the file's current data and size are durable. */
static int make_durable(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return -errno;
    dirty **link;
    dirty *d = dirty_find(st.st_ino, &link);
    if (d) {
        *link = d->next;
        dirty_free(d);
    }
    return 0;
}

/* Puts a file back to its durable data (or, torn, keeps a random half of the unsynced pages). */
static void cut_data(dirty *d, long *dropped, long *kept)
{
    struct stat st;
    if (fstat(d->fd, &st) != 0) return;
    off_t size = d->dsize;
    for (size_t i = 0; i < d->cap; i++) {
        if (d->keys[i] < 0) continue;
        off_t at = (off_t)d->keys[i] * PG;
        if (torn && at < st.st_size && (rnd() & 1)) {
            (*kept)++;
            if (!d->pages[i] && at + PG > size) size = at + PG < st.st_size ? at + PG : st.st_size;
            d->keys[i] = -2; /* kept */
            continue;
        }
        (*dropped)++;
        if (d->pages[i] && pwrite(d->fd, d->pages[i], PG, at) != PG) say("cannot restore a page of inode %ju: %s", (uintmax_t)d->ino, strerror(errno));
    }
    if (ftruncate(d->fd, size) != 0) say("cannot truncate inode %ju: %s", (uintmax_t)d->ino, strerror(errno));
    /* torn: new pages not kept below a kept one read as zeros */
    static char zero[PG];
    for (size_t i = 0; i < d->cap; i++)
        if (d->keys[i] >= 0 && !d->pages[i] && (off_t)d->keys[i] * PG < size) {
            off_t at = (off_t)d->keys[i] * PG;
            size_t len = at + PG <= size ? PG : (size_t)(size - at);
            if (pwrite(d->fd, zero, len, at) < 0) say("cannot zero a page: %s", strerror(errno));
        }
}

/* ------------------------------------------------------------------ names: the namespace log */

enum { CREATED, GONE, RENAMED };

typedef struct nsop {
    int kind;
    char *path, *path2; /* CREATED path; GONE path and its graveyard name; RENAMED from, to */
    ino_t dirs[2];      /* directories still to be fsynced for the change to be durable */
    int ndirs;
    struct nsop *prev, *next;
} nsop;

static nsop *ns_head, *ns_tail;
static unsigned long grave_seq;

static int parent_ino(const char *bp, ino_t *out)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", bp);
    char *slash = strrchr(buf, '/');
    if (!slash) return -EINVAL;
    if (slash == buf) slash[1] = '\0';
    else *slash = '\0';
    struct stat st;
    if (stat(buf, &st) != 0) return -errno;
    *out = st.st_ino;
    return 0;
}

static void ns_log(int kind, const char *p, const char *p2, const char *dir_of_a, const char *dir_of_b)
{
    nsop *o = calloc(1, sizeof *o);
    if (!o) abort();
    o->kind = kind;
    o->path = strdup(p);
    o->path2 = p2 ? strdup(p2) : NULL;
    ino_t a = 0, b = 0;
    if (parent_ino(dir_of_a, &a) == 0) o->dirs[o->ndirs++] = a;
    if (dir_of_b && parent_ino(dir_of_b, &b) == 0 && (o->ndirs == 0 || b != a)) o->dirs[o->ndirs++] = b;
    o->prev = ns_tail;
    if (ns_tail) ns_tail->next = o;
    else ns_head = o;
    ns_tail = o;
}

static void remove_tree(const char *p)
{
    struct stat st;
    if (lstat(p, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *dp = opendir(p);
        if (dp) {
            struct dirent *de;
            char sub[PATH_MAX];
            while ((de = readdir(dp)) != NULL) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
                snprintf(sub, sizeof sub, "%s/%s", p, de->d_name);
                remove_tree(sub);
            }
            closedir(dp);
        }
        if (rmdir(p) != 0) say("cannot remove %s: %s", p, strerror(errno));
    } else if (unlink(p) != 0) {
        say("cannot remove %s: %s", p, strerror(errno));
    }
}

static void ns_unlink_op(nsop *o)
{
    if (o->prev) o->prev->next = o->next;
    else ns_head = o->next;
    if (o->next) o->next->prev = o->prev;
    else ns_tail = o->prev;
    free(o->path);
    free(o->path2);
    free(o);
}

/* fsync of a directory: the changes it took part in are durable once all their directories are. */
static void ns_dir_synced(ino_t dir)
{
    for (nsop *o = ns_head, *nx; o; o = nx) {
        nx = o->next;
        for (int i = 0; i < o->ndirs; i++)
            if (o->dirs[i] == dir) {
                o->dirs[i] = o->dirs[--o->ndirs];
                break;
            }
        if (o->ndirs == 0) {
            if (o->kind == GONE) remove_tree(o->path2);
            ns_unlink_op(o);
        }
    }
}

static long cut_names(void)
{
    long n = 0;
    while (ns_tail) {
        nsop *o = ns_tail;
        n++;
        if (o->kind == CREATED) remove_tree(o->path);
        else if (o->kind == GONE) {
            if (rename(o->path2, o->path) != 0) say("cannot bring back %s: %s", o->path, strerror(errno));
        } else if (rename(o->path2, o->path) != 0) {
            say("cannot undo the rename of %s to %s: %s", o->path, o->path2, strerror(errno));
        }
        ns_unlink_op(o);
    }
    return n;
}

/* Moves an existing name to the graveyard and logs its removal. */
static int bury(const char *bp)
{
    char g[PATH_MAX];
    snprintf(g, sizeof g, "%s" GRAVE "/%lu", backing, ++grave_seq);
    ns_log(GONE, bp, g, bp, NULL); /* the directory before the name goes */
    if (rename(bp, g) != 0) {
        int e = errno;
        ns_unlink_op(ns_tail);
        return -e;
    }
    return 0;
}

/* ------------------------------------------------------------------ FUSE operations */

static void *cf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1;
    cfg->hard_remove = 1; /* unlink an open file at once (no .fuse_hidden renames) */
    cfg->nullpath_ok = 1;
    printf("MOUNTED\n");
    fflush(stdout);
    return NULL;
}

static int cf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    if (fi) return fstat((int)fi->fh, st) == 0 ? 0 : -errno;
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return lstat(bp, st) == 0 ? 0 : -errno;
}

static int cf_access(const char *path, int mask)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return access(bp, mask) == 0 ? 0 : -errno;
}

static int cf_readlink(const char *path, char *buf, size_t size)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    ssize_t n = readlink(bp, buf, size - 1);
    if (n < 0) return -errno;
    buf[n] = '\0';
    return 0;
}

static int cf_opendir(const char *path, struct fuse_file_info *fi)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    DIR *d = opendir(bp);
    if (!d) return -errno;
    fi->fh = (uint64_t)(uintptr_t)d;
    return 0;
}

static int cf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
    (void)path;
    (void)off;
    (void)flags;
    DIR *d = (DIR *)(uintptr_t)fi->fh;
    rewinddir(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = de->d_ino;
        st.st_mode = (mode_t)de->d_type << 12;
        if (fill(buf, de->d_name, &st, 0, 0)) break;
    }
    return 0;
}

static int cf_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    closedir((DIR *)(uintptr_t)fi->fh);
    return 0;
}

static int cf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    struct stat st;
    if (fstat(dirfd((DIR *)(uintptr_t)fi->fh), &st) != 0) return -errno;
    ns_dir_synced(st.st_ino);
    return 0;
}

static int cf_mkdir(const char *path, mode_t mode)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    if (mkdir(bp, mode) != 0) return -errno;
    ns_log(CREATED, bp, NULL, bp, NULL);
    return 0;
}

static int cf_mknod(const char *path, mode_t mode, dev_t dev)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    if (mknod(bp, mode, dev) != 0) return -errno;
    ns_log(CREATED, bp, NULL, bp, NULL);
    return 0;
}

static int cf_symlink(const char *target, const char *path)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    if (symlink(target, bp) != 0) return -errno;
    ns_log(CREATED, bp, NULL, bp, NULL);
    return 0;
}

static int cf_link(const char *from, const char *to)
{
    char bf[PATH_MAX], bt[PATH_MAX];
    int rc = bpath(from, bf);
    if (!rc) rc = bpath(to, bt);
    if (rc) return rc;
    if (link(bf, bt) != 0) return -errno;
    ns_log(CREATED, bt, NULL, bt, NULL);
    return 0;
}

static int cf_unlink(const char *path)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    struct stat st;
    if (lstat(bp, &st) != 0) return -errno;
    if (S_ISDIR(st.st_mode)) return -EISDIR;
    return bury(bp);
}

static int cf_rmdir(const char *path)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    struct stat st;
    if (lstat(bp, &st) != 0) return -errno;
    if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
    DIR *d = opendir(bp);
    if (!d) return -errno;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) empty = 0;
    closedir(d);
    if (!empty) return -ENOTEMPTY;
    return bury(bp);
}

static int cf_rename(const char *from, const char *to, unsigned int flags)
{
    char bf[PATH_MAX], bt[PATH_MAX];
    int rc = bpath(from, bf);
    if (!rc) rc = bpath(to, bt);
    if (rc) return rc;
    if (flags & ~(unsigned)RENAME_NOREPLACE) return -EINVAL;
    struct stat sf, stt;
    if (lstat(bf, &sf) != 0) return -errno;
    if (lstat(bt, &stt) == 0) {
        if (flags & RENAME_NOREPLACE) return -EEXIST;
        if (sf.st_ino == stt.st_ino) return 0;
        if (S_ISDIR(stt.st_mode) != S_ISDIR(sf.st_mode)) return S_ISDIR(stt.st_mode) ? -EISDIR : -ENOTDIR;
        if (S_ISDIR(stt.st_mode)) {
            if ((rc = cf_rmdir(to)) != 0) return rc;
        } else if ((rc = bury(bt)) != 0) {
            return rc;
        }
    }
    if (rename(bf, bt) != 0) return -errno;
    ns_log(RENAMED, bf, bt, bf, bt);
    return 0;
}

static int cf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    if (fi) return fchmod((int)fi->fh, mode) == 0 ? 0 : -errno;
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return chmod(bp, mode) == 0 ? 0 : -errno;
}

static int cf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    if (fi) return fchown((int)fi->fh, uid, gid) == 0 ? 0 : -errno;
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return lchown(bp, uid, gid) == 0 ? 0 : -errno;
}

static int cf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    if (fi) return futimens((int)fi->fh, tv) == 0 ? 0 : -errno;
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return utimensat(AT_FDCWD, bp, tv, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* Changes the size of the file open as fd, saving the pages it cuts off. */
static int resize(int fd, off_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return -errno;
    if (size < st.st_size) {
        int rc = save_pages(fd, size, st.st_size, 0);
        if (rc) return rc;
    } else if (size > st.st_size) {
        /* the zeros past the old end: only a page holding both old and new bytes has durable content */
        int rc = save_pages(fd, st.st_size, st.st_size + 1, 0);
        if (rc) return rc;
    }
    return ftruncate(fd, size) == 0 ? 0 : -errno;
}

static int cf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (fi) return resize((int)fi->fh, size);
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    int fd = open(bp, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    rc = resize(fd, size);
    close(fd);
    return rc;
}

/* Descriptors opened with O_SYNC/O_DSYNC (their writes are durable when they return). */
static unsigned char sync_fd[65536];

static int open_backing(const char *bp, struct fuse_file_info *fi, int create, mode_t mode)
{
    int flags = fi->flags & ~(O_APPEND | O_DIRECT | O_SYNC | O_DSYNC | O_TRUNC | O_CREAT | O_EXCL);
    if ((flags & O_ACCMODE) == O_WRONLY) flags = (flags & ~O_ACCMODE) | O_RDWR;
    int existed = 0;
    if (create) {
        struct stat st;
        existed = lstat(bp, &st) == 0;
        if (existed && (fi->flags & O_EXCL)) return -EEXIST;
    }
    int fd = open(bp, flags | O_CLOEXEC | (create && !existed ? O_CREAT | O_EXCL : 0), mode);
    if (fd < 0) return -errno;
    if (create && !existed) ns_log(CREATED, bp, NULL, bp, NULL);
    if (fi->flags & O_TRUNC) {
        int rc = resize(fd, 0);
        if (rc) { close(fd); return rc; }
    }
    if (fd < (int)sizeof sync_fd) sync_fd[fd] = (fi->flags & (O_SYNC | O_DSYNC)) != 0;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int cf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return open_backing(bp, fi, 1, mode);
}

static int cf_open(const char *path, struct fuse_file_info *fi)
{
    char bp[PATH_MAX];
    int rc = bpath(path, bp);
    if (rc) return rc;
    return open_backing(bp, fi, 0, 0);
}

static int cf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pread((int)fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int cf_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    int fd = (int)fi->fh;
    struct stat st;
    if (fstat(fd, &st) != 0) return -errno;
    int rc = save_pages(fd, off < st.st_size ? off : st.st_size, off + (off_t)size, 1);
    if (rc) return rc;
    ssize_t n = pwrite(fd, buf, size, off);
    if (n < 0) return -errno;
    if (fd < (int)sizeof sync_fd && sync_fd[fd]) make_durable(fd);
    return (int)n;
}

static int cf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync; /* fdatasync also makes the size durable, which is all the metadata modelled */
    return make_durable((int)fi->fh);
}

static int cf_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)path;
    int fd = (int)fi->fh;
    if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE)) return -EOPNOTSUPP;
    if (mode & FALLOC_FL_PUNCH_HOLE) {
        int rc = save_pages(fd, off, off + len, 0);
        if (rc) return rc;
    }
    return fallocate(fd, mode, off, len) == 0 ? 0 : -errno;
}

static int cf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    int fd = (int)fi->fh;
    if (fd < (int)sizeof sync_fd) sync_fd[fd] = 0;
    close(fd);
    return 0;
}

static int cf_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return statvfs(backing, st) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .init = cf_init,
    .getattr = cf_getattr,
    .access = cf_access,
    .readlink = cf_readlink,
    .opendir = cf_opendir,
    .readdir = cf_readdir,
    .releasedir = cf_releasedir,
    .fsyncdir = cf_fsyncdir,
    .mkdir = cf_mkdir,
    .mknod = cf_mknod,
    .symlink = cf_symlink,
    .link = cf_link,
    .unlink = cf_unlink,
    .rmdir = cf_rmdir,
    .rename = cf_rename,
    .chmod = cf_chmod,
    .chown = cf_chown,
    .utimens = cf_utimens,
    .truncate = cf_truncate,
    .create = cf_create,
    .open = cf_open,
    .read = cf_read,
    .write = cf_write,
    .fsync = cf_fsync,
    .fallocate = cf_fallocate,
    .release = cf_release,
    .statfs = cf_statfs,
};

int main(int argc, char **argv)
{
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (!strcmp(argv[i], "--torn") && i + 1 < argc) {
            torn = 1;
            rng_state = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else {
            break;
        }
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: cutfs [--torn SEED] [--quiet] BACKING MOUNTPOINT\n"
                        "  a pass-through of BACKING that drops everything not fsynced when unmounted\n");
        return 2;
    }
    backing = realpath(argv[i], NULL);
    if (!backing) {
        fprintf(stderr, "cutfs: %s: %s\n", argv[i], strerror(errno));
        return 2;
    }
    char grave[PATH_MAX];
    snprintf(grave, sizeof grave, "%s" GRAVE, backing);
    remove_tree(grave);
    if (mkdir(grave, 0700) != 0) {
        fprintf(stderr, "cutfs: cannot create %s: %s\n", grave, strerror(errno));
        return 2;
    }
    char *fargs[] = {argv[0], "-f", "-s", "-o", "fsname=cutfs,subtype=cutfs", argv[i + 1], NULL};
    int rc = fuse_main(6, fargs, &ops, NULL);
    /* unmounted: the power goes */
    long dropped = 0, kept = 0, files = 0;
    for (dirty *d = dirties, *nx; d; d = nx) {
        nx = d->next;
        files++;
        cut_data(d, &dropped, &kept);
        dirty_free(d);
    }
    dirties = NULL;
    long names = cut_names();
    remove_tree(grave);
    printf("CUT files=%ld pages_dropped=%ld pages_kept=%ld names_undone=%ld\n", files, dropped, kept, names);
    fflush(stdout);
    return rc;
}
