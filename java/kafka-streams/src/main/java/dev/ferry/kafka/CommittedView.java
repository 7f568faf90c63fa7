package dev.ferry.kafka;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;

/**
 * The {@code READ_COMMITTED} view of a transactional Ferry store that {@code readOnly(IsolationLevel)}
 * hands out (KIP-892): each call of the store kind's read-only interface runs on the store with its
 * uncommitted writes hidden ({@link FerryStateStore#readCommitted}); iterators it returns keep
 * reading the committed state only. Its write methods (the versioned store's view is a
 * {@code VersionedKeyValueStore}) throw {@link UnsupportedOperationException}.
 */
final class CommittedView implements InvocationHandler {
    /** The write methods of the interfaces (the versioned store's readOnly view is a VersionedKeyValueStore). */
    private static final Set<String> WRITES = Set.of("put", "putIfAbsent", "putAll", "delete", "remove");
    private final FerryStateStore store;

    private CommittedView(FerryStateStore store) {
        this.store = store;
    }

    /**
     * @param type the read-only interface the store implements
     * @param store the store
     * @param <T> the interface
     * @return the view
     */
    static <T> T of(Class<T> type, FerryStateStore store) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new CommittedView(store)));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "read-committed view of " + store;
            };
        }
        if (WRITES.contains(method.getName())) {
            throw new UnsupportedOperationException("the read-committed view of store " + store.name() + " is read-only");
        }
        try {
            return store.readCommitted(() -> method.invoke(store, args));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
