/* JNI glue for dev.ferry.jni.JniBinding's own natives: address0 and wrap0 for direct buffers, and
 * JNI_OnLoad. The wrappers of the ferry_* functions (JniFunctions' natives) are generated from ferry.h
 * into functions.c by native/gen/bindings.py. */
#include <jni.h>

#include <stdint.h>

#define P(x) ((void *)(intptr_t)(x))

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    return JNI_VERSION_1_8;
}

/* JniBinding.address0(ByteBuffer): address of a direct buffer (0 if not direct). */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_address0(JNIEnv *env, jclass cls, jobject buf)
{
    return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buf);
}

/* JniBinding.wrap0(long, int): a direct buffer over native memory the caller keeps alive. */
JNIEXPORT jobject JNICALL Java_dev_ferry_jni_JniBinding_wrap0(JNIEnv *env, jclass cls, jlong addr, jint len)
{
    return (*env)->NewDirectByteBuffer(env, P(addr), (jlong)len);
}

/* ---- merge operators written in Java (ferry.h: "Merge operators of the binding's language") ----
 * The ferry_merge_fn of both Java bindings is a C trampoline here that calls Java through JNI: RocksDB
 * calls it from the reading thread and from its own flush and compaction threads. A thread the JVM
 * does not know is attached once, as a daemon, and stays attached until it ends (the key's destructor
 * detaches it), so a compaction pays for the attach once, not per merge. The operands go to the
 * binding's dispatcher, a static method merge(long token, int kind, byte[] key, byte[] existing,
 * byte[][] operands) returning byte[], as copies (RocksDB's memory is valid only during the call); a
 * null result, or any exception (which the dispatcher already catches), is a failed merge.
 *
 * The FFM binding uses this trampoline too (ferry_jvm_merge_callback), not an upcall stub: the JDK
 * detaches the threads its upcalls attached when they end, and a RocksDB thread ending while the JVM
 * exits would then wait forever (see process_exiting), which this file's detach can skip. */
#include "ferry.h"
#include "platform.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

/* The dispatchers: JNI (JniBinding.merge) and FFM (FfmMergeDispatch.merge); both may be in use in
 * one process. Set once each, under setup_lock; read by the trampolines after that. */
enum { DISPATCH_JNI, DISPATCH_FFM, DISPATCHERS };
static struct {
    jclass cls;       /* global reference */
    jmethodID method; /* merge(long, int, byte[], byte[], byte[][]) -> byte[] */
    jmethodID filter; /* filter(long, int, long, int, byte[], byte[], byte[][]) -> long */
    jmethodID compare; /* compare(long, byte[], byte[]) -> long */
} dispatch[DISPATCHERS];
static JavaVM *merge_vm;
static jclass bytes_class;      /* global reference */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t detach_key;
static int key_made;

/* Set by an exit handler: the process is ending. The JVM's exit runs the C exit handlers while its VM
 * thread holds the JVM's thread list lock, and RocksDB's handler then joins its thread pool: a
 * RocksDB thread detaching itself at that point would wait for that lock forever (and the exit for
 * the thread). Ours was registered after RocksDB's (the engine is loaded before the first Java
 * merge operator), so it runs before it: threads ending from then on leave the JVM alone, and
 * merges asked for from then on fail without entering the JVM (which has stopped running Java). */
static volatile sig_atomic_t process_exiting;

static void note_exit(void)
{
    process_exiting = 1;
}

static void detach_thread(void *vm)
{
    if (!process_exiting) (*(JavaVM *)vm)->DetachCurrentThread((JavaVM *)vm);
}

static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void watch_exit(void)
{
    atexit(note_exit);
}

static jbyteArray copy_bytes(JNIEnv *env, const void *p, size_t n)
{
    if (n > 0x7fffffff) return NULL;
    jbyteArray a = (*env)->NewByteArray(env, (jsize)n);
    if (a && n) (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)p);
    return a;
}

/* The calling thread's JNIEnv, attaching the thread (once, as a daemon) when the JVM does not know it;
 * NULL once the process exits or when attaching fails. */
static JNIEnv *thread_env(void)
{
    if (process_exiting) return NULL;
    JNIEnv *env = NULL;
    jint got = (*merge_vm)->GetEnv(merge_vm, (void **)&env, JNI_VERSION_1_8);
    if (got == JNI_EDETACHED) {
        pthread_once(&exit_once, watch_exit);
        if ((*merge_vm)->AttachCurrentThreadAsDaemon(merge_vm, (void **)&env, NULL) != JNI_OK) return NULL;
        pthread_setspecific(detach_key, merge_vm);
    } else if (got != JNI_OK) {
        return NULL;
    }
    return env;
}

static int32_t merge_call(int which, int64_t token, int32_t kind, const void *key, size_t klen,
                          const void *existing, int64_t elen, int32_t n, const void *const *ops,
                          const size_t *op_lens, ferry_merge_value *out)
{
    JNIEnv *env = thread_env();
    if (!env) return 0;
    if (n < 0 || (*env)->PushLocalFrame(env, 8) != 0) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    int32_t ok = 0;
    jbyteArray k = copy_bytes(env, key, klen);
    jbyteArray e = existing && elen >= 0 ? copy_bytes(env, existing, (size_t)elen) : NULL;
    jobjectArray arr = k && (!existing || elen < 0 || e) ? (*env)->NewObjectArray(env, n, bytes_class, NULL) : NULL;
    for (jsize i = 0; arr && i < n; i++) {
        jbyteArray o = copy_bytes(env, ops[i], op_lens[i]);
        if (!o) { arr = NULL; break; }
        (*env)->SetObjectArrayElement(env, arr, i, o);
        (*env)->DeleteLocalRef(env, o);
    }
    if (arr) {
        jbyteArray r = (jbyteArray)(*env)->CallStaticObjectMethod(env, dispatch[which].cls, dispatch[which].method,
                                                                  (jlong)token, (jint)kind, k, e, arr);
        if (r && !(*env)->ExceptionCheck(env)) {
            jsize len = (*env)->GetArrayLength(env, r);
            void *dst = ferry_merge_value_alloc(out, (size_t)len);
            if (dst) {
                (*env)->GetByteArrayRegion(env, r, 0, len, (jbyte *)dst);
                ok = 1;
            }
        }
    }
    (*env)->ExceptionClear(env);   /* an allocation failure above; the dispatchers throw nothing */
    (*env)->PopLocalFrame(env, NULL);
    return ok;
}

static int32_t merge_jni(int64_t token, int32_t kind, const void *key, size_t klen, const void *existing,
                         int64_t elen, int32_t n, const void *const *ops, const size_t *op_lens,
                         ferry_merge_value *out)
{
    return merge_call(DISPATCH_JNI, token, kind, key, klen, existing, elen, n, ops, op_lens, out);
}

static int32_t merge_ffm(int64_t token, int32_t kind, const void *key, size_t klen, const void *existing,
                         int64_t elen, int32_t n, const void *const *ops, const size_t *op_lens,
                         ferry_merge_value *out)
{
    return merge_call(DISPATCH_FFM, token, kind, key, klen, existing, elen, n, ops, op_lens, out);
}

/* The ferry_filter_fn of both bindings (ferry.h, "Compaction filters of the binding's language"): the
 * dispatcher's static filter(long token, int kind, long arg, int level, byte[] key, byte[] value,
 * byte[][] out) returning long, with copies of the key and value; for FERRY_FILTER_CHANGE the new value
 * is out[0]. Any failure (the dispatchers throw nothing) keeps the entry, or (BEGIN) filters nothing. */
static int64_t filter_call(int which, int64_t token, int32_t kind, int64_t arg, int32_t level, const void *key,
                           size_t klen, const void *value, size_t vlen, ferry_merge_value *out)
{
    JNIEnv *env = thread_env();
    if (!env) return 0;
    if ((*env)->PushLocalFrame(env, 8) != 0) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    int64_t r = 0;
    jbyteArray k = key ? copy_bytes(env, key, klen) : NULL;
    jbyteArray v = value ? copy_bytes(env, value, vlen) : NULL;
    jobjectArray box = kind == FERRY_FILTER_ENTRY ? (*env)->NewObjectArray(env, 1, bytes_class, NULL) : NULL;
    if ((!key || k) && (!value || v) && (kind != FERRY_FILTER_ENTRY || box)) {
        r = (*env)->CallStaticLongMethod(env, dispatch[which].cls, dispatch[which].filter, (jlong)token, (jint)kind,
                                         (jlong)arg, (jint)level, k, v, box);
        if ((*env)->ExceptionCheck(env)) {
            r = 0;
        } else if (kind == FERRY_FILTER_ENTRY && r == FERRY_FILTER_CHANGE) {
            jbyteArray nv = (jbyteArray)(*env)->GetObjectArrayElement(env, box, 0);
            jsize len = nv ? (*env)->GetArrayLength(env, nv) : 0;
            void *dst = nv && out ? ferry_merge_value_alloc(out, (size_t)len) : NULL;
            if (dst) (*env)->GetByteArrayRegion(env, nv, 0, len, (jbyte *)dst);
            else r = FERRY_FILTER_KEEP;
        }
    }
    (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
    return r;
}

static int64_t filter_jni(int64_t token, int32_t kind, int64_t arg, int32_t level, const void *key, size_t klen,
                          const void *value, size_t vlen, ferry_merge_value *out)
{
    return filter_call(DISPATCH_JNI, token, kind, arg, level, key, klen, value, vlen, out);
}

static int64_t filter_ffm(int64_t token, int32_t kind, int64_t arg, int32_t level, const void *key, size_t klen,
                          const void *value, size_t vlen, ferry_merge_value *out)
{
    return filter_call(DISPATCH_FFM, token, kind, arg, level, key, klen, value, vlen, out);
}

/* The ferry_compare_fn of both bindings (ferry.h, "Comparators of the binding's language"): the dispatcher's
 * static compare(long token, byte[] a, byte[] b) returning long, with copies of both keys: the order as
 * an int, or Long.MIN_VALUE when the comparator failed (the dispatchers throw nothing), which sets
 * *failed, as does anything else that goes wrong here. */
static int32_t compare_call(int which, int64_t token, const void *a, size_t alen, const void *b, size_t blen,
                            int32_t *failed)
{
    JNIEnv *env = thread_env();
    if (!env) {
        *failed = 1;
        return 0;
    }
    if ((*env)->PushLocalFrame(env, 4) != 0) {
        (*env)->ExceptionClear(env);
        *failed = 1;
        return 0;
    }
    int64_t r = INT64_MIN;
    jbyteArray ja = copy_bytes(env, a, alen);
    jbyteArray jb = ja ? copy_bytes(env, b, blen) : NULL;
    if (jb) {
        r = (*env)->CallStaticLongMethod(env, dispatch[which].cls, dispatch[which].compare, (jlong)token, ja, jb);
        if ((*env)->ExceptionCheck(env)) r = INT64_MIN;
    }
    (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
    if (r == INT64_MIN) {
        *failed = 1;
        return 0;
    }
    return r < 0 ? -1 : r > 0;
}

static int32_t compare_jni(int64_t token, const void *a, size_t alen, const void *b, size_t blen, int32_t *failed)
{
    return compare_call(DISPATCH_JNI, token, a, alen, b, blen, failed);
}

static int32_t compare_ffm(int64_t token, const void *a, size_t alen, const void *b, size_t blen, int32_t *failed)
{
    return compare_call(DISPATCH_FFM, token, a, alen, b, blen, failed);
}

/* Caches cls's static merge and filter methods as dispatcher which (once; a second call keeps the first) and what
 * the trampolines share, on env's thread. 1 on success; 0 with an exception pending or cleared. */
static int merge_setup(JNIEnv *env, int which, jclass cls)
{
    int ok = 0;
    pthread_mutex_lock(&setup_lock);
    if (dispatch[which].method) {
        ok = 1;
        goto done;
    }
    if (!key_made) key_made = pthread_key_create(&detach_key, detach_thread) == 0;
    if (!key_made) goto done;
    if (!merge_vm && (*env)->GetJavaVM(env, &merge_vm) != 0) goto done;
    if (!bytes_class) {
        jclass bytes = (*env)->FindClass(env, "[B");
        if (!bytes) goto done;
        bytes_class = (jclass)(*env)->NewGlobalRef(env, bytes);
        if (!bytes_class) goto done;
    }
    jmethodID m = (*env)->GetStaticMethodID(env, cls, "merge", "(JI[B[B[[B)[B");
    jmethodID f = m ? (*env)->GetStaticMethodID(env, cls, "filter", "(JIJI[B[B[[B)J") : NULL;
    jmethodID c = f ? (*env)->GetStaticMethodID(env, cls, "compare", "(J[B[B)J") : NULL;
    jclass global = c ? (jclass)(*env)->NewGlobalRef(env, cls) : NULL;
    if (!global) goto done;
    dispatch[which].cls = global;
    dispatch[which].filter = f;
    dispatch[which].compare = c;
    dispatch[which].method = m;
    ok = 1;
done:
    pthread_mutex_unlock(&setup_lock);
    return ok;
}

/* JniBinding.mergeCallback0(): the address of the JNI trampoline, after caching JniBinding.merge; 0
 * when that fails (a pending exception says why). */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_mergeCallback0(JNIEnv *env, jclass cls)
{
    return merge_setup(env, DISPATCH_JNI, cls) ? (jlong)(intptr_t)&merge_jni : 0;
}

/* JniBinding.filterCallback0(): the address of the JNI compaction filter trampoline, after caching
 * JniBinding.filter; 0 when that fails (a pending exception says why). */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_filterCallback0(JNIEnv *env, jclass cls)
{
    return merge_setup(env, DISPATCH_JNI, cls) ? (jlong)(intptr_t)&filter_jni : 0;
}

/* JniBinding.compareCallback0(): the address of the JNI comparator trampoline, after caching JniBinding's
 * dispatch methods; 0 when that fails (a pending exception says why). */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_compareCallback0(JNIEnv *env, jclass cls)
{
    return merge_setup(env, DISPATCH_JNI, cls) ? (jlong)(intptr_t)&compare_jni : 0;
}

typedef jint (JNICALL *created_vms_fn)(JavaVM **, jsize, jsize *);

/* JNI_GetCreatedJavaVMs of the JVM this library runs in: from the object that gives it to the process's
 * global scope, else from any loaded object that defines it (a JVM loaded with local symbols). */
static created_vms_fn find_created_vms(void)
{
    static const char sym[] = "JNI_GetCreatedJavaVMs";
    const char *path = plat_global_sym_path(sym);
    plat_lib *lib = path ? plat_lib_find(path) : NULL;
    void *f = lib ? plat_lib_sym(lib, sym) : NULL;
    if (lib) plat_lib_close(lib);   /* the JVM stays loaded: this process runs in it */
    if (f) return (created_vms_fn)f;
    char **names = NULL;
    size_t n = 0;
    if (plat_loaded_names(&names, &n) != FERRY_OK) return NULL;
    for (size_t i = 0; i < n && !f; i++) {
        lib = names[i] ? plat_lib_find(names[i]) : NULL;
        if (lib && plat_lib_defines(lib, sym)) f = plat_lib_sym(lib, sym);
        if (lib) plat_lib_close(lib);
    }
    plat_free_names(names, n);
    return (created_vms_fn)f;
}

/* The class named name ("a.b.C") as the calling thread's context class loader loads it, or NULL. JNI's
 * FindClass would use the loader of the Java method that called into native code, and under an FFM
 * downcall that is a class of the JDK's linker (the boot loader, which does not see Ferry). */
static jclass context_class(JNIEnv *env, const char *name)
{
    jclass thread = (*env)->FindClass(env, "java/lang/Thread");
    jclass loader_class = thread ? (*env)->FindClass(env, "java/lang/ClassLoader") : NULL;
    jmethodID current = loader_class ? (*env)->GetStaticMethodID(env, thread, "currentThread", "()Ljava/lang/Thread;") : NULL;
    jmethodID context = current ? (*env)->GetMethodID(env, thread, "getContextClassLoader", "()Ljava/lang/ClassLoader;") : NULL;
    jmethodID load = context ? (*env)->GetMethodID(env, loader_class, "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;") : NULL;
    jobject self = load ? (*env)->CallStaticObjectMethod(env, thread, current) : NULL;
    jobject loader = self && !(*env)->ExceptionCheck(env) ? (*env)->CallObjectMethod(env, self, context) : NULL;
    jstring jname = loader && !(*env)->ExceptionCheck(env) ? (*env)->NewStringUTF(env, name) : NULL;
    jobject cls = jname ? (*env)->CallObjectMethod(env, loader, load, jname) : NULL;
    return cls && !(*env)->ExceptionCheck(env) ? (jclass)cls : NULL;
}

/* ffm_setup, ferry_jvm_merge_callback: for the FFM binding (not in ferry.h: only a Java binding has a JVM to call), from a Java thread
 * through a plain (not critical) downcall: the address of the FFM trampoline, after caching the
 * static merge method of the class named dispatcher ("dev.ferry.ffm.internal.FfmMergeDispatch",
 * loaded by the calling thread's context class loader, which the binding sets to its own for the
 * call); NULL when that fails (no JVM in the process, no such class or method). */
static int ffm_setup(const char *dispatcher)
{
    if (!dispatcher) return 0;
    JavaVM *vm = merge_vm;
    if (!vm) {
        created_vms_fn created = find_created_vms();
        jsize count = 0;
        if (!created || created(&vm, 1, &count) != JNI_OK || count < 1) return 0;
    }
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return 0;  /* not a Java thread */
    if ((*env)->PushLocalFrame(env, 16) != 0) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    jclass cls = context_class(env, dispatcher);
    int ok = cls && merge_setup(env, DISPATCH_FFM, cls);
    (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
    return ok;
}

JNIEXPORT void *ferry_jvm_merge_callback(const char *dispatcher)
{
    return ffm_setup(dispatcher) ? (void *)&merge_ffm : NULL;
}

/* For the FFM binding, as ferry_jvm_merge_callback: the address of the FFM compaction filter trampoline
 * (the dispatcher class's static filter method), or NULL. */
JNIEXPORT void *ferry_jvm_filter_callback(const char *dispatcher)
{
    return ffm_setup(dispatcher) ? (void *)&filter_ffm : NULL;
}

/* For the FFM binding, as ferry_jvm_merge_callback: the address of the FFM comparator trampoline (the
 * dispatcher class's static compare method), or NULL. */
JNIEXPORT void *ferry_jvm_compare_callback(const char *dispatcher)
{
    return ffm_setup(dispatcher) ? (void *)&compare_ffm : NULL;
}
