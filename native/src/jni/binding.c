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
