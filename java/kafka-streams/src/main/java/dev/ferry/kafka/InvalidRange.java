package dev.ferry.kafka;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warning Kafka's built-in stores log when a range query's lower key sorts after its upper key
 * (in serialized bytes): the query returns an empty iterator and logs this line, which operators
 * search for. Ferry's stores log the same text at the same level.
 */
final class InvalidRange {
    /** The built-in stores' message, word for word. */
    static final String MESSAGE = "Returning empty iterator for fetch with invalid key range: from > to. "
            + "This may be due to range arguments set in the wrong order, "
            + "or serdes that don't preserve ordering when lexicographically comparing the serialized bytes. "
            + "Note that the built-in numerical serdes do not follow this for negative numbers";

    private InvalidRange() {
    }

    /**
     * Logs the warning for an inverted range on the store's logger.
     *
     * @param store the store's class, whose logger is used
     */
    static void warn(Class<?> store) {
        Logger log = LoggerFactory.getLogger(store);
        log.warn(MESSAGE);
    }
}
