/* The platform layer (platform.h) for Windows: LoadLibraryExW and GetProcAddress, the module list
 * of the process (K32EnumProcessModules, GetModuleFileNameW) for loaded libraries, file identity by
 * GetFileInformationByHandle, and the file calls on UTF-16 paths. The shim's paths are UTF-8 (Java
 * passes UTF-8); every one is converted here. Built with mingw-w64, whose winpthreads supplies the
 * pthread mutexes and read-write locks the rest of the shim uses. */
#define WIN32_LEAN_AND_MEAN
#define PSAPI_VERSION 2 /* EnumProcessModules is K32EnumProcessModules of kernel32: no psapi.dll */
#include "platform.h"

#include <windows.h>
#include <psapi.h>

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ UTF-8 <-> UTF-16 */

/* A malloc'd UTF-16 copy of UTF-8 s, or NULL (errno-style reason in *err_out when not NULL). */
static wchar_t *wide(const char *s, int *err_out)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        if (err_out) *err_out = EINVAL;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        if (err_out) *err_out = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* A malloc'd UTF-8 copy of UTF-16 w, or NULL. */
static char *narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    if (n <= 0) return NULL;
    char *s = malloc((size_t)n);
    if (!s) return NULL;
    WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

/* The full path of UTF-8 path with backslashes, malloc'd UTF-16 (the loader compares module
 * paths in that form), or NULL. */
static wchar_t *full_path(const char *path, int *err_out)
{
    wchar_t *w = wide(path, err_out);
    if (!w) return NULL;
    DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
    wchar_t *f = n ? malloc((size_t)n * sizeof *f) : NULL;
    if (!f || GetFullPathNameW(w, n, f, NULL) == 0) {
        if (err_out) *err_out = f ? EINVAL : ENOMEM;
        free(f);
        free(w);
        return NULL;
    }
    free(w);
    for (wchar_t *p = f; *p; p++)
        if (*p == L'/') *p = L'\\';
    return f;
}

/* The errno value closest to a Win32 error code. */
static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_DRIVE: case ERROR_BAD_NETPATH:
    case ERROR_BAD_PATHNAME: case ERROR_INVALID_NAME:
        return ENOENT;
    case ERROR_ALREADY_EXISTS: case ERROR_FILE_EXISTS: return EEXIST;
    case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
    case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return ENOMEM;
    case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    default: return EIO;
    }
}

/* The system's text for Win32 error e, in English when the system has it, else in its own
 * language, without the trailing period and line end; its length (0: none). */
static DWORD win_message(DWORD e, char *buf, DWORD cap)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e,
                             MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), buf, cap, NULL);
    if (n == 0) n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, buf, cap, NULL);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.' || buf[n - 1] == ' ')) buf[--n] = '\0';
    if (n == 0 && cap > 0) buf[0] = '\0';
    return n;
}

/* ------------------------------------------------------------------ libraries */

/* The calling thread's last loader failure, for plat_lib_error. */
static _Thread_local char lib_error[512];

/* Record the failure of what (with its path) and GetLastError's text. */
static void set_lib_error(const char *what, const char *path)
{
    DWORD e = GetLastError();
    char text[300];
    DWORD n = win_message(e, text, sizeof text);
    snprintf(lib_error, sizeof lib_error, "%s %s: error %lu%s%s", what, path, (unsigned long)e, n ? ": " : "", text);
}

plat_lib *plat_lib_open(const char *path)
{
    wchar_t *w = full_path(path, NULL);
    if (!w) {
        SetLastError(ERROR_INVALID_NAME);
        set_lib_error("LoadLibraryExW", path);
        return NULL;
    }
    /* the library's own directory is searched for its dependencies */
    HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!h) set_lib_error("LoadLibraryExW", path);
    free(w);
    return (plat_lib *)h;
}

plat_lib *plat_lib_find(const char *path)
{
    wchar_t *w = full_path(path, NULL);
    if (!w) return NULL;
    HMODULE h = NULL;
    if (!GetModuleHandleExW(0, w, &h)) h = NULL;   /* a new reference, or nothing */
    free(w);
    return (plat_lib *)h;
}

void plat_lib_close(plat_lib *lib)
{
    if (lib) FreeLibrary((HMODULE)lib);
}

void *plat_lib_sym(plat_lib *lib, const char *name)
{
    FARPROC p = GetProcAddress((HMODULE)lib, name);
    void *v;
    memcpy(&v, &p, sizeof v);
    return v;
}

const char *plat_lib_error(void)
{
    return lib_error[0] ? lib_error : "unknown error";
}

int plat_lib_same(plat_lib *a, plat_lib *b)
{
    return a == b;   /* an HMODULE is the module's base address */
}

int plat_lib_defines(plat_lib *lib, const char *name)
{
    /* GetProcAddress finds only lib's exports, but an export may forward to another DLL: the
     * address must lie in lib itself */
    void *p = plat_lib_sym(lib, name);
    HMODULE owner = NULL;
    if (!p || !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                  (LPCWSTR)p, &owner))
        return 0;
    return owner == (HMODULE)lib;
}

/* The process's modules: a malloc'd array in load order, *n_out of them, or NULL. */
static HMODULE *modules(size_t *n_out)
{
    HANDLE self = GetCurrentProcess();
    DWORD need = 0, have = 0;
    HMODULE *v = NULL;
    for (int tries = 0; tries < 8; tries++) {   /* the list may grow between the calls */
        if (!EnumProcessModules(self, v, have, &need)) { free(v); return NULL; }
        if (need <= have) {
            *n_out = need / sizeof *v;
            return v;
        }
        free(v);
        have = need + 16 * sizeof *v;
        if (!(v = malloc(have))) return NULL;
    }
    free(v);
    return NULL;
}

/* The UTF-8 file name of module h, malloc'd, or NULL. */
static char *module_name(HMODULE h)
{
    DWORD cap = MAX_PATH;
    for (;;) {
        wchar_t *w = malloc((size_t)cap * sizeof *w);
        if (!w) return NULL;
        DWORD n = GetModuleFileNameW(h, w, cap);
        if (n == 0) { free(w); return NULL; }
        if (n < cap) {
            char *s = narrow(w);
            free(w);
            return s;
        }
        free(w);   /* truncated: try a larger buffer */
        if (cap >= 32768) return NULL;
        cap *= 2;
    }
}

void plat_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

int plat_loaded_names(char ***names_out, size_t *n_out)
{
    size_t n;
    HMODULE *m = modules(&n);
    if (!m) return FERRY_ENOMEM;
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) { free(m); return FERRY_ENOMEM; }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char *s = module_name(m[i]);
        if (s) names[k++] = s;   /* a module unloaded meanwhile has no name: skipped */
    }
    free(m);
    *names_out = names;
    *n_out = k;
    return FERRY_OK;
}

const char *plat_global_sym_path(const char *name)
{
    static _Thread_local char path[4 * MAX_PATH * 3];
    size_t n;
    HMODULE *m = modules(&n);
    if (!m) return NULL;
    const char *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        if (!plat_lib_defines((plat_lib *)m[i], name)) continue;
        char *s = module_name(m[i]);
        if (s && strlen(s) < sizeof path) {
            memcpy(path, s, strlen(s) + 1);
            found = path;
        }
        free(s);
    }
    free(m);
    return found;
}

/* A handle to read the identity of path (a file or a directory), or INVALID_HANDLE_VALUE. */
static HANDLE open_attrs(const char *path)
{
    wchar_t *w = wide(path, NULL);
    if (!w) return INVALID_HANDLE_VALUE;
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    return h;
}

int plat_same_file(const char *a, const char *b)
{
    HANDLE ha = open_attrs(a), hb = open_attrs(b);
    BY_HANDLE_FILE_INFORMATION ia, ib;
    int same = ha != INVALID_HANDLE_VALUE && hb != INVALID_HANDLE_VALUE && GetFileInformationByHandle(ha, &ia)
               && GetFileInformationByHandle(hb, &ib) && ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber
               && ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
    if (ha != INVALID_HANDLE_VALUE) CloseHandle(ha);
    if (hb != INVALID_HANDLE_VALUE) CloseHandle(hb);
    return same;
}

/* ------------------------------------------------------------------ files */

int plat_mkdir(const char *path)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) return e;
    e = CreateDirectoryW(w, NULL) ? 0 : errno_of(GetLastError());
    free(w);
    return e;
}

int plat_rmdir(const char *path)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) return e;
    e = RemoveDirectoryW(w) ? 0 : errno_of(GetLastError());
    free(w);
    return e;
}

int plat_unlink(const char *path)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) return e;
    e = DeleteFileW(w) ? 0 : errno_of(GetLastError());
    free(w);
    return e;
}

int plat_stat(const char *path, int *err_out)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) {
        if (err_out) *err_out = e;
        return 0;
    }
    DWORD a = GetFileAttributesW(w);
    DWORD why = GetLastError();
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        if (err_out) *err_out = errno_of(why);
        return 0;
    }
    return (a & FILE_ATTRIBUTE_DIRECTORY) ? PLAT_DIR : PLAT_FILE;
}

/* GetFileAttributesW does not follow a reparse point: a symbolic link or junction shows its own
 * attributes, FILE_ATTRIBUTE_REPARSE_POINT among them (with FILE_ATTRIBUTE_DIRECTORY for a link to a
 * directory), so it is PLAT_OTHER here, never a directory to descend into. */
int plat_lstat(const char *path, int *err_out)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) {
        if (err_out) *err_out = e;
        return 0;
    }
    DWORD a = GetFileAttributesW(w);
    DWORD why = GetLastError();
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        if (err_out) *err_out = errno_of(why);
        return 0;
    }
    if (a & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE)) return PLAT_OTHER;
    return (a & FILE_ATTRIBUTE_DIRECTORY) ? PLAT_DIR : PLAT_FILE;
}

FILE *plat_fopen(const char *path, const char *mode)
{
    wchar_t *w = wide(path, NULL), *m = wide(mode, NULL);
    FILE *f = w && m ? _wfopen(w, m) : NULL;
    free(w);
    free(m);
    return f;
}

int plat_is_sep(char c)
{
    return c == '/' || c == '\\';
}

struct plat_dir {
    HANDLE find;
    int first;          /* data holds the first entry, not yet returned */
    WIN32_FIND_DATAW data;
    char *name;         /* the last name returned */
};

plat_dir *plat_dir_open(const char *path, int *err_out)
{
    size_t n = strlen(path);
    char *pattern = malloc(n + 3);
    plat_dir *d = calloc(1, sizeof *d);
    if (!pattern || !d) {
        free(pattern);
        free(d);
        if (err_out) *err_out = ENOMEM;
        return NULL;
    }
    memcpy(pattern, path, n);
    size_t k = n;
    if (k == 0 || !plat_is_sep(pattern[k - 1])) pattern[k++] = '\\';
    pattern[k++] = '*';
    pattern[k] = '\0';
    int e = 0;
    wchar_t *w = wide(pattern, &e);
    free(pattern);
    if (!w) {
        free(d);
        if (err_out) *err_out = e;
        return NULL;
    }
    d->find = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
    DWORD why = GetLastError();
    free(w);
    if (d->find == INVALID_HANDLE_VALUE) {
        free(d);
        /* a file: "not a directory", as opendir says */
        if (err_out) *err_out = why == ERROR_DIRECTORY || (why == ERROR_PATH_NOT_FOUND && plat_stat(path, NULL) == PLAT_FILE)
                                    ? ENOTDIR : errno_of(why);
        return NULL;
    }
    d->first = 1;
    return d;
}

const char *plat_dir_next(plat_dir *d)
{
    free(d->name);
    d->name = NULL;
    for (;;) {
        if (!d->first && !FindNextFileW(d->find, &d->data)) return NULL;
        d->first = 0;
        if ((d->name = narrow(d->data.cFileName)) != NULL) return d->name;
    }
}

void plat_dir_close(plat_dir *d)
{
    if (!d) return;
    FindClose(d->find);
    free(d->name);
    free(d);
}

/* The C runtime errno values LMDB returns on Windows besides Win32 codes (mdb.c, mdb_strerror). */
static int lmdb_crt_code(int code)
{
    return code == ENOENT || code == EIO || code == ENOMEM || code == EACCES || code == EBUSY || code == EINVAL
        || code == ENOSPC;
}

int plat_sys_errno(int code)
{
    if (lmdb_crt_code(code)) return code;
    int e = errno_of((DWORD)code);
    return e == EIO && code != ERROR_IO_DEVICE && code != ERROR_CRC ? 0 : e;   /* EIO: errno_of's "other" */
}

const char *plat_sys_error_text(int code)
{
    static _Thread_local char text[300];
    if (lmdb_crt_code(code)) return strerror(code);
    if (win_message((DWORD)code, text, sizeof text) == 0) snprintf(text, sizeof text, "Windows error %d", code);
    return text;
}

/* ------------------------------------------------------------------ time, threads, memory */

void plat_sleep_us(uint32_t us)
{
    Sleep(us < 1000 ? 1 : (us + 999) / 1000);
}

void plat_yield(void)
{
    SwitchToThread();
}

int64_t plat_now_ms(void)
{
    return (int64_t)GetTickCount64();
}

void *plat_aligned_alloc(size_t align, size_t size)
{
    return _aligned_malloc(size, align);
}

void plat_aligned_free(void *p)
{
    _aligned_free(p);
}

size_t plat_page_size(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwPageSize;
}

int plat_mutex_lock_ms(pthread_mutex_t *m, uint32_t ms)
{
    /* winpthreads' pthread_mutex_timedlock waits on CLOCK_REALTIME, as POSIX says */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    return pthread_mutex_timedlock(m, &until);
}

int plat_rwlock_init_writer_first(pthread_rwlock_t *l)
{
    return pthread_rwlock_init(l, NULL);   /* winpthreads has no preference to set */
}

/* Directory entries: NTFS journals its metadata, and Windows offers no fsync of a directory to a
 * process without backup privileges; nothing to do. */
int plat_sync_dir(const char *path)
{
    (void)path;
    return 0;
}

/* A file's data and size: FlushFileBuffers on a handle opened for writing (sharing everything, so a
 * file an engine holds open can be flushed too). */
int plat_sync_file(const char *path)
{
    int e = 0;
    wchar_t *w = wide(path, &e);
    if (!w) return e;
    HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        int x = plat_sys_errno((int)GetLastError());
        return x ? x : EIO;
    }
    int rc = FlushFileBuffers(h) ? 0 : EIO;
    CloseHandle(h);
    return rc;
}
