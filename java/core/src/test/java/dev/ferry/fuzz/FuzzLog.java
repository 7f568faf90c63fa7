package dev.ferry.fuzz;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The misuse fuzzer's call log: one line per operation, written straight to the file (no Java
 * buffer) before the operation runs, so a JVM that dies inside the call leaves its last line
 * on disk. Lines are {@code <ms since start> T<thread> #<op number> <call>}; lines starting
 * with two spaces record what a call threw. When the file passes {@link #ROTATE_BYTES} it is
 * renamed to {@code <name>.1} (replacing the previous one) and a new file starts, so a long run
 * keeps the last 64-128 MiB of history.
 *
 * <p>Thread safety: thread-safe (lines from different threads never interleave).
 */
public final class FuzzLog implements AutoCloseable {
    static final long ROTATE_BYTES = 64L << 20;

    private final Path path;
    private final long start = System.nanoTime();
    private FileOutputStream out;
    private long written;

    /**
     * Creates (truncates) the log.
     *
     * @param path the log file
     */
    public FuzzLog(Path path) {
        this.path = path;
        try {
            out = new FileOutputStream(path.toFile(), false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return milliseconds since the log was created */
    public long elapsedMillis() {
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Appends one line for an operation about to run.
     *
     * @param thread the fuzzing thread's number
     * @param seq the operation's number on that thread
     * @param call what is called, with its arguments
     */
    public void op(int thread, long seq, String call) {
        line(elapsedMillis() + " T" + thread + " #" + seq + " " + call);
    }

    /**
     * Appends one free-form line.
     *
     * @param text the line, without its newline
     */
    public synchronized void line(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 1);
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            sb.append(ch < 0x20 ? '?' : ch); // one line per call, whatever the arguments hold
        }
        byte[] b = sb.append('\n').toString().getBytes(StandardCharsets.UTF_8);
        try {
            if (written + b.length > ROTATE_BYTES) {
                out.close();
                Files.move(path, path.resolveSibling(path.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
                out = new FileOutputStream(path.toFile(), false);
                written = 0;
            }
            out.write(b);
            written += b.length;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
