package dev.ferry.kafka;

import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The entries of a segmented store's iterator with their store keys decoded into windowed keys: what the
 * window, time-ordered window and session stores hand out, each with its own key layout ({@code decode}).
 * Confined to the thread that opened the underlying iterator, as that iterator is.
 */
final class WindowedIterator implements KeyValueIterator<Windowed<Bytes>, byte[]> {
    private final KeyValueIterator<Bytes, byte[]> inner; // null: empty
    private final Function<byte[], Windowed<Bytes>> decode;

    /**
     * @param inner the store-key iterator, or null for an empty one
     * @param decode a store key to its windowed key
     */
    WindowedIterator(KeyValueIterator<Bytes, byte[]> inner, Function<byte[], Windowed<Bytes>> decode) {
        this.inner = inner;
        this.decode = decode;
    }

    @Override
    public boolean hasNext() {
        return inner != null && inner.hasNext();
    }

    @Override
    public KeyValue<Windowed<Bytes>, byte[]> next() {
        if (inner == null) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> kv = inner.next();
        return KeyValue.pair(decode.apply(kv.key.get()), kv.value);
    }

    @Override
    public Windowed<Bytes> peekNextKey() {
        if (inner == null) {
            throw new NoSuchElementException();
        }
        return decode.apply(inner.peekNextKey().get());
    }

    @Override
    public void close() {
        if (inner != null) {
            inner.close();
        }
    }
}
