package dev.ferry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * cutfs (tests/powercut/cutfs.c), the power-cut file system, mounted for a test: a FUSE pass-through
 * of a backing directory that drops everything not made durable (fsync of a file for its data, of
 * a directory for its entries) when it is unmounted. {@link #unavailableReason} compiles it once
 * per JVM into {@code target/powercut/cutfs} of the module (cc and libfuse3's pkg-config flags) and
 * tries a mount; {@link #cut} unmounts, after which the backing directory holds exactly the durable
 * state.
 */
public final class PowerCutFs implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 60;
    private static boolean checked;
    private static String reason;
    private static Path exe;

    private final Process process;
    private final Path mountPoint;
    private final Path errFile;
    private final LinkedBlockingQueue<String> out = new LinkedBlockingQueue<>();
    private boolean mounted;

    private PowerCutFs(Process process, Path mountPoint, Path errFile) {
        this.process = process;
        this.mountPoint = mountPoint;
        this.errFile = errFile;
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = in.readLine()) != null;) {
                    out.add(l);
                }
            } catch (IOException ignored) {
                // cutfs exited
            }
            out.add("EOF");
        }, "cutfs-stdout");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Builds cutfs and mounts it once to see that FUSE works here.
     *
     * @param work a scratch directory
     * @return null when power-cut tests can run, else why not (no /dev/fuse, no fusermount3, no C
     *     compiler or libfuse3-dev, mounting not permitted)
     */
    public static synchronized String unavailableReason(Path work) throws IOException, InterruptedException {
        if (checked) {
            return reason;
        }
        checked = true;
        reason = build();
        if (reason == null) {
            Path b = Files.createDirectories(work.resolve("probe-disk"));
            Path m = Files.createDirectories(work.resolve("probe-mnt"));
            try (PowerCutFs fs = mount(b, m, null, work.resolve("probe.err"))) {
                Files.writeString(m.resolve("probe"), "x");
                fs.cut();
            } catch (IOException | IllegalStateException e) {
                reason = "cannot mount FUSE here: " + e.getMessage();
            }
        }
        return reason;
    }

    private static String build() throws IOException, InterruptedException {
        if (!Files.exists(Paths.get("/dev/fuse"))) {
            return "no /dev/fuse";
        }
        if (!onPath("fusermount3")) {
            return "no fusermount3 (Debian package fuse3)";
        }
        Path src = null;
        for (Path d = Paths.get("").toAbsolutePath(); d != null && src == null; d = d.getParent()) {
            Path c = d.resolve("tests/powercut/cutfs.c");
            if (Files.exists(c)) {
                src = c;
            }
        }
        if (src == null) {
            return "tests/powercut/cutfs.c not found above " + Paths.get("").toAbsolutePath();
        }
        if (!onPath("cc")) {
            return "no C compiler (cc)";
        }
        Run flags = run(List.of("pkg-config", "--cflags", "--libs", "fuse3"));
        if (flags == null || flags.exit != 0) {
            return "no libfuse3 development files (Debian package libfuse3-dev; pkg-config fuse3 failed)";
        }
        Path target = Files.createDirectories(Paths.get("target", "powercut").toAbsolutePath());
        Path bin = target.resolve("cutfs");
        if (!Files.exists(bin) || Files.getLastModifiedTime(bin).compareTo(Files.getLastModifiedTime(src)) < 0) {
            List<String> cmd = new ArrayList<>(List.of("cc", "-O2", "-Wall", "-o", bin.toString(), src.toString()));
            cmd.addAll(List.of(flags.output.trim().split("\\s+")));
            Run cc = run(cmd);
            if (cc == null || cc.exit != 0) {
                throw new IllegalStateException("cutfs.c does not compile: " + cmd + "\n" + (cc == null ? "" : cc.output));
            }
        }
        exe = bin;
        return null;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Paths.get(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private record Run(int exit, String output) {
    }

    private static Run run(List<String> cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            return null;
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), output);
    }

    /**
     * Mounts cutfs over {@code backing} at {@code mountPoint}.
     *
     * @param backing the backing directory (the durable state after the cut)
     * @param mountPoint an empty directory
     * @param tornSeed null, or the seed with which the cut keeps a random half of unsynced pages
     * @param errFile where cutfs's stderr goes
     * @return the mounted file system
     */
    public static PowerCutFs mount(Path backing, Path mountPoint, Long tornSeed, Path errFile) throws IOException, InterruptedException {
        if (exe == null) {
            throw new IllegalStateException("cutfs not built: call unavailableReason first");
        }
        List<String> cmd = new ArrayList<>(List.of(exe.toString()));
        if (tornSeed != null) {
            cmd.addAll(List.of("--torn", Long.toUnsignedString(tornSeed)));
        }
        cmd.addAll(List.of(backing.toString(), mountPoint.toString()));
        PowerCutFs fs = new PowerCutFs(new ProcessBuilder(cmd).redirectError(errFile.toFile()).start(), mountPoint, errFile);
        String first = fs.out.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!"MOUNTED".equals(first)) {
            fs.process.destroyForcibly();
            fs.process.waitFor();
            throw new IOException("cutfs did not mount (" + first + "): " + Files.readString(errFile).trim());
        }
        fs.mounted = true;
        return fs;
    }

    /**
     * Cuts the power: unmounts, lets cutfs put the backing directory back to its durable state.
     *
     * @return cutfs's summary line ({@code CUT files=... pages_dropped=... pages_kept=... names_undone=...})
     */
    public String cut() throws IOException, InterruptedException {
        unmount();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("cutfs did not exit within " + TIMEOUT_SECONDS + " s of its unmount");
        }
        String err = Files.exists(errFile) ? Files.readString(errFile).trim() : "";
        for (String l = out.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS); l != null && !l.equals("EOF"); l = out.poll(TIMEOUT_SECONDS,
                TimeUnit.SECONDS)) {
            if (l.startsWith("CUT ")) {
                if (process.exitValue() != 0) {
                    throw new IllegalStateException("cutfs exited with " + process.exitValue() + ": " + err);
                }
                return err.isEmpty() ? l : l + " (" + err + ")";
            }
        }
        throw new IllegalStateException("cutfs exited with " + process.exitValue() + " without cutting: " + err);
    }

    private void unmount() throws IOException, InterruptedException {
        if (!mounted) {
            return;
        }
        // a file system still busy (a process that has not let go of it yet) is retried, then detached
        for (int i = 0; i < 50; i++) {
            Run r = run(List.of("fusermount3", "-u", mountPoint.toString()));
            if (r != null && r.exit == 0) {
                mounted = false;
                return;
            }
            Thread.sleep(100);
        }
        run(List.of("fusermount3", "-u", "-z", mountPoint.toString()));
        mounted = false;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        unmount();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
