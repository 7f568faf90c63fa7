package dev.ferry.kafka;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * A {@code @TempDir} factory for tests whose subject is not durability (which stores the DSL makes, what they
 * answer) but which commit after every record under TopologyTestDriver, so that each commit's synced write
 * would otherwise wait for the disk: the directory is made on Linux's RAM file system ({@code /dev/shm}) where
 * it is a writable directory, and in the default temporary directory elsewhere. The stores run the same code
 * either way; JUnit deletes the directory after the test as usual.
 */
public final class RamTempDir implements TempDirFactory {
    private static final Path RAM = Path.of("/dev/shm");

    /** Made by JUnit. */
    public RamTempDir() {
    }

    @Override
    public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext) throws Exception {
        if (Files.isDirectory(RAM) && Files.isWritable(RAM)) {
            return Files.createTempDirectory(RAM, "ferry-junit");
        }
        return Files.createTempDirectory("ferry-junit");
    }
}
