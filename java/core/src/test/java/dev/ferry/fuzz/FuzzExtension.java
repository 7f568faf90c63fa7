package dev.ferry.fuzz;

/**
 * Operations a module adds to the misuse fuzzer (e.g. ferry-ffm's {@code Segments}), loaded by
 * class name in the child JVM ({@code ext=<class>}; the class needs a public no-argument
 * constructor).
 *
 * <p>Thread safety: called from every fuzzing thread at once.
 */
public interface FuzzExtension {
    /**
     * Registers the extension's operations.
     *
     * @param table the operation table
     */
    void register(OpTable table);

    /**
     * One read a race's reader thread repeats on a cursor it does not own (run through
     * {@link Ctx#quiet}); the default does nothing.
     *
     * @param c the reader's context
     * @param cur the cursor
     */
    default void foreignRead(Ctx c, World.CurRef cur) {
    }
}
