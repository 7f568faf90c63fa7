package dev.ferry.bench.dbbench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The RocksDB engine binary a process really runs: the file mapped into it whose name starts
 * with {@code librocksdbjni} (RocksJava's extracted copy in a JVM, the .so beside C++ db_bench in
 * the cache), read from {@code /proc/<pid>/maps}, with its SHA-256. Two runs used the same engine
 * code when the hashes are equal.
 *
 * @param path the mapped file
 * @param sha256 its SHA-256, lower-case hex
 * @param source how the path was found, e.g. "/proc/1234/maps"
 */
public record EngineBinary(Path path, String sha256, String source) {
    /** File-name prefix of RocksJava's engine library. */
    static final String PREFIX = "librocksdbjni";

    /**
     * Finds the engine mapped into a process.
     *
     * @param pid the process ("self" for this one)
     * @return the engine, or empty when none is mapped (yet)
     */
    public static Optional<EngineBinary> ofProcess(String pid) {
        Path maps = Path.of("/proc", pid, "maps");
        List<String> lines;
        try {
            lines = Files.readAllLines(maps);
        } catch (IOException e) {
            return Optional.empty();
        }
        for (String l : lines) {
            int slash = l.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = l.substring(slash).trim();
            if (file.endsWith(" (deleted)")) {
                file = file.substring(0, file.length() - " (deleted)".length());
            }
            Path p = Path.of(file);
            if (p.getFileName().toString().startsWith(PREFIX)) {
                return Optional.of(new EngineBinary(p, sha256(p), maps.toString()));
            }
        }
        return Optional.empty();
    }

    /**
     * Hashes a file.
     *
     * @param p the file
     * @return SHA-256 in hex, or "unreadable" when it cannot be read (e.g. deleted)
     */
    public static String sha256(Path p) {
        try (InputStream in = Files.newInputStream(p)) {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0;) {
                d.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (IOException e) {
            return "unreadable";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the engine line both tools print: "Engine: path sha256 hash (from source)" */
    public String line() {
        return "Engine:     " + path + " sha256 " + sha256 + " (mapped, from " + source + ")";
    }
}
