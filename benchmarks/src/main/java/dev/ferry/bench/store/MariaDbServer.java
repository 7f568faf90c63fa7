package dev.ferry.bench.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private MariaDB server for one run: a fresh data directory ({@code mariadb-install-db}), {@code
 * mariadbd --no-defaults} (so InnoDB's defaults, no system configuration) on its own socket and a free
 * TCP port on 127.0.0.1 only, a database {@code ferry} and a user {@code ferry} for JDBC; {@link #close()}
 * shuts it down. It needs Debian's {@code mariadb-server} installed; it never installs anything
 * ({@code benchmarks/reproduce million} does, {@link #missing()} says what is absent).
 *
 * <p>Thread safety: one owner.
 */
public final class MariaDbServer implements AutoCloseable {
    private static final Path[] DIRS = {Path.of("/usr/sbin"), Path.of("/usr/bin"), Path.of("/usr/local/sbin"), Path.of("/usr/local/bin")};

    private final Path dir;
    private final int port;
    private final Process process;
    private final String version;

    private MariaDbServer(Path dir, int port, Process process, String version) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.version = version;
    }

    private static Path find(String name) {
        for (Path d : DIRS) {
            Path p = d.resolve(name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** @return null when the server's programs are installed, else what is missing and how to get it */
    public static String missing() {
        List<String> absent = new ArrayList<>();
        for (String n : List.of("mariadbd", "mariadb-install-db", "mariadb")) {
            if (find(n) == null) {
                absent.add(n);
            }
        }
        return absent.isEmpty() ? null
                : "MariaDB server not installed (" + String.join(", ", absent) + " not found): apt-get install mariadb-server";
    }

    /**
     * Creates a data directory under {@code dir} and starts a server on it.
     *
     * @param dir an empty directory for the data, socket, log and pid file (created when missing)
     * @return the running server
     * @throws IOException when it cannot be started (the error log's tail in the message)
     */
    public static MariaDbServer start(Path dir) throws IOException {
        String why = missing();
        if (why != null) {
            throw new IOException(why);
        }
        Files.createDirectories(dir);
        Path data = dir.resolve("data");
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> install = new ArrayList<>(List.of(find("mariadb-install-db").toString(), "--no-defaults",
                "--datadir=" + data, "--auth-root-authentication-method=socket", "--skip-test-db"));
        if (root) {
            install.add("--user=root");
        }
        run(install, dir.resolve("install.log"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path sock = dir.resolve("mysqld.sock");
        List<String> cmd = new ArrayList<>(List.of(find("mariadbd").toString(), "--no-defaults", "--datadir=" + data,
                "--socket=" + sock, "--port=" + port, "--bind-address=127.0.0.1", "--pid-file=" + dir.resolve("mysqld.pid"),
                "--log-error=" + dir.resolve("error.log"), "--skip-name-resolve"));
        if (root) {
            cmd.add("--user=root");
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(sock)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroy();
                throw new IOException("mariadbd did not start: " + tail(dir.resolve("error.log")));
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                p.destroy();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        MariaDbServer server = new MariaDbServer(dir, port, p, "");
        try {
            server.sql("CREATE DATABASE ferry; CREATE USER 'ferry'@'127.0.0.1' IDENTIFIED BY 'ferry';"
                    + " GRANT ALL ON ferry.* TO 'ferry'@'127.0.0.1';");
            String v = server.sql("SELECT VERSION();").trim();
            return new MariaDbServer(dir, port, p, v);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private String sql(String statements) throws IOException {
        Path log = dir.resolve("client.log");
        List<String> cmd = List.of(find("mariadb").toString(), "--no-defaults", "--socket=" + dir.resolve("mysqld.sock"), "-u",
                System.getProperty("user.name"), "-N", "-B", "-e", statements);
        run(cmd, log);
        return Files.readString(log);
    }

    private static void run(List<String> cmd, Path log) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(cmd.get(0) + " did not finish in 180 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + tail(log));
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** @return the JDBC URL of database {@code ferry} over TCP on 127.0.0.1 */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/ferry";
    }

    /** @return where this server connects: user {@code ferry}, password {@code ferry} */
    public Stores.Servers servers() {
        return new Stores.Servers(jdbcUrl(), "ferry", "ferry");
    }

    /** @return the server's {@code VERSION()} */
    public String version() {
        return version;
    }

    /** Stops the server (SIGTERM, then waits up to a minute; SIGKILL after that). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Deletes the server's directory (after {@link #close()}).
     *
     * @throws UncheckedIOException when it cannot
     */
    public void delete() {
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
