package dev.ferry;

import java.util.Objects;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Optional adapter for Agrona-based code: exposes a {@link View} as an Agrona
 * {@link DirectBuffer} without copying. Needs {@code org.agrona:agrona} on the class path (an
 * optional dependency of ferry-core); nothing else in Ferry touches Agrona.
 *
 * <pre>{@code
 * UnsafeBuffer kb = new UnsafeBuffer(0, 0);          // reused for every entry
 * for (boolean ok = c.first(); ok; ok = c.next()) {
 *     long id = AgronaViews.wrap(c.key(), kb).getLong(0, ByteOrder.BIG_ENDIAN);
 * }
 * }</pre>
 *
 * <p>Byte order: Agrona's getters without a {@code ByteOrder} read native order (little-endian on
 * x86-64 and aarch64), while {@link View}'s ({@link View#getLong(int)}, {@link View#getInt(int)},
 * ...) read big-endian, as {@code ByteBuffer} does. So {@code AgronaViews.wrap(v).getLong(0)} and
 * {@code v.getLong(0)} give different numbers for the same bytes: pass the order to Agrona (as
 * above) or to the view ({@code v.getLong(0, ByteOrder.nativeOrder())}) to read one number.
 *
 * <p>The wrapped buffer reads the view's memory directly and follows Agrona's rules, not Ferry's:
 * it is valid only until the cursor moves and Agrona does no lifetime checks, so do not keep it.
 *
 * <p>Thread safety: the cursor's thread only.
 */
public final class AgronaViews {
    private static final InternalAccess ACCESS = InternalAccess.get();

    private AgronaViews() {
    }

    /**
     * Points a reusable buffer at a view's bytes (no allocation, no copy). Its getters without a
     * byte order read native order, unlike the view's (big-endian): see the class comment.
     *
     * @param view a valid view
     * @param into the buffer to re-point
     * @return {@code into}
     */
    public static UnsafeBuffer wrap(View view, UnsafeBuffer into) {
        Objects.requireNonNull(into, "into");
        int len = view.length();
        into.wrap(ACCESS.address(view), len);
        return into;
    }

    /**
     * Wraps a view's bytes in a new buffer (one small allocation, no copy). {@code wrap(v).getLong(0)}
     * reads native order, {@code v.getLong(0)} big-endian: see the class comment.
     *
     * @param view a valid view
     * @return a buffer over the view's bytes
     */
    public static UnsafeBuffer wrap(View view) {
        int len = view.length();
        return new UnsafeBuffer(ACCESS.address(view), len);
    }
}
