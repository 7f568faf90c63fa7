package dev.ferry.kafka;

import dev.ferry.Engine;

/**
 * {@link FerryDslStoreSuppliers} with LMDB stores: set {@code dsl.store.suppliers.class} to this class to put
 * every DSL store of an application on Ferry's LMDB stores. Everything else, including which stores stay
 * Kafka's, is as in {@link FerryDslStoreSuppliers}.
 *
 * <p>Thread safety: configured once, then read only.
 */
public class FerryLmdbDslStoreSuppliers extends FerryDslStoreSuppliers {
    /** Makes the LMDB suppliers; Kafka Streams instantiates the class by name. */
    public FerryLmdbDslStoreSuppliers() {
        super(Engine.LMDB);
    }
}
