package dev.ferry;

/**
 * Receives entries from {@link Store#scan}. The views are valid only during the call.
 *
 * <p>Thread safety: called on the scanning thread.
 */
@FunctionalInterface
public interface EntryVisitor {
    /**
     * Visits one entry.
     *
     * @param key the key, valid during this call
     * @param value the value, valid during this call
     * @return true to continue, false to stop the scan
     */
    boolean visit(View key, View value);
}
