package dev.ferry;

import dev.ferry.internal.ApiAccess;
import dev.ferry.internal.CursorHost;
import dev.ferry.internal.Once;
import java.nio.ByteBuffer;

/** The package-private operations other Ferry packages reach through {@link ApiAccess}. */
final class Internals implements ApiAccess.Hooks {
    @Override
    public Cursor newCursor(CursorHost host, long handle, Once release, KeyRange range, int pageSize, boolean armed) {
        return new Cursor(host, handle, release, range, pageSize, false, armed);
    }

    @Override
    public ByteBuffer encoded(WriteBatch batch) {
        return batch.encoded();
    }

    @Override
    public boolean namesFamilies(WriteBatch batch) {
        return batch.familiesOf() != null;
    }
}
