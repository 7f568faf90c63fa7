#!/usr/bin/env python3
"""Tests of cutfs, the power-cut file system (tests/powercut/cutfs.c).

Each case mounts cutfs over a fresh backing directory, does some file operations through the mount,
unmounts it (the power cut) and checks what the backing directory holds: the durable state only.

    python3 tests/powercut/test_cutfs.py        # builds cutfs with cc into a temporary directory

Prints "N passed, N failed" (and ", N skipped") last; exits 1 on a failure. Without FUSE (no
/dev/fuse, no fusermount3, no libfuse3-dev, or mounting not permitted) it prints why and skips,
unless FERRY_REQUIRE_FUSE=1, where that is a failure.
"""
import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def unavailable(work):
    """Builds cutfs into work; returns (path to cutfs, None) or (None, reason)."""
    if not os.path.exists("/dev/fuse"):
        return None, "no /dev/fuse"
    if shutil.which("fusermount3") is None:
        return None, "no fusermount3 (Debian package fuse3)"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None, "no C compiler (cc)"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], capture_output=True, text=True)
    if flags.returncode != 0:
        return None, "no libfuse3 development files (Debian package libfuse3-dev; pkg-config fuse3 failed)"
    exe = os.path.join(work, "cutfs")
    b = subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, os.path.join(HERE, "cutfs.c")] + flags.stdout.split(),
                       capture_output=True, text=True)
    if b.returncode != 0:
        raise SystemExit("cutfs.c does not compile:\n" + b.stderr)
    return exe, None


class Mount:
    """cutfs mounted over backing at mnt; unmount() cuts the power and returns cutfs's CUT line."""

    def __init__(self, exe, backing, mnt, torn=None):
        args = [exe, "--quiet"] + (["--torn", str(torn)] if torn is not None else []) + [backing, mnt]
        self.mnt = mnt
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().strip()
        if line != "MOUNTED":
            self.p.kill()
            raise RuntimeError("cutfs did not mount: " + line + " " + self.p.stderr.read())

    def path(self, *names):
        return os.path.join(self.mnt, *names)

    def unmount(self):
        subprocess.run(["fusermount3", "-u", self.mnt], check=True)
        out, err = self.p.communicate(timeout=60)
        if self.p.returncode != 0:
            raise RuntimeError("cutfs exited with %d: %s" % (self.p.returncode, err))
        return out.strip()


def write_file(path, data, sync=False, flags=0):
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | flags, 0o644)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def sync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def durable_file(m, name, data):
    """Creates name with data, fsyncs it and the directory."""
    write_file(m.path(name), data, sync=True)
    sync_dir(m.mnt)


# --- cases: each takes (m, backing) with m mounted; the harness unmounts, then calls the check it returns

def case_unsynced_write_is_lost(m, b):
    durable_file(m, "f", b"durable")
    write_file(m.path("f"), b"DURABLE and more, never synced")
    assert read(m.path("f")) == b"DURABLE and more, never synced"  # reads see the volatile state
    return lambda: assert_eq(read(os.path.join(b, "f")), b"durable")


def case_synced_write_is_kept(m, b):
    durable_file(m, "f", b"one")
    write_file(m.path("f"), b"two, synced", sync=True)
    return lambda: assert_eq(read(os.path.join(b, "f")), b"two, synced")


def case_fdatasync_makes_data_and_size_durable(m, b):
    durable_file(m, "f", b"x")
    fd = os.open(m.path("f"), os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"y" * 10000)
    os.fdatasync(fd)
    os.write(fd, b"z" * 10)
    os.close(fd)
    return lambda: assert_eq(read(os.path.join(b, "f")), b"x" + b"y" * 10000)


def case_create_and_file_fsync_without_dir_fsync_loses_the_name(m, b):
    write_file(m.path("new"), b"data", sync=True)
    return lambda: assert_eq(os.path.exists(os.path.join(b, "new")), False)


def case_create_with_file_and_dir_fsync_is_kept(m, b):
    write_file(m.path("new"), b"data", sync=True)
    sync_dir(m.mnt)
    return lambda: assert_eq(read(os.path.join(b, "new")), b"data")


def case_dir_fsync_without_file_fsync_keeps_an_empty_file(m, b):
    write_file(m.path("new"), b"data")
    sync_dir(m.mnt)
    return lambda: assert_eq(read(os.path.join(b, "new")), b"")


def case_rename_needs_the_dir_fsync(m, b):
    durable_file(m, "a", b"A")
    os.rename(m.path("a"), m.path("b"))
    return lambda: (assert_eq(read(os.path.join(b, "a")), b"A"), assert_eq(os.path.exists(os.path.join(b, "b")), False))


def case_rename_with_dir_fsync_is_kept(m, b):
    durable_file(m, "a", b"A")
    os.rename(m.path("a"), m.path("b"))
    sync_dir(m.mnt)
    return lambda: (assert_eq(read(os.path.join(b, "b")), b"A"), assert_eq(os.path.exists(os.path.join(b, "a")), False))


def case_unsynced_rename_over_a_file_brings_the_old_file_back(m, b):
    durable_file(m, "current", b"old")
    write_file(m.path("tmp"), b"new", sync=True)
    os.rename(m.path("tmp"), m.path("current"))
    return lambda: (assert_eq(read(os.path.join(b, "current")), b"old"), assert_eq(os.path.exists(os.path.join(b, "tmp")), False))


def case_rename_across_dirs_needs_both_dir_fsyncs(m, b):
    os.mkdir(m.path("d1"))
    os.mkdir(m.path("d2"))
    sync_dir(m.mnt)
    write_file(m.path("d1", "f"), b"F", sync=True)
    sync_dir(m.path("d1"))
    os.rename(m.path("d1", "f"), m.path("d2", "f"))
    sync_dir(m.path("d2"))  # not d1
    return lambda: (assert_eq(read(os.path.join(b, "d1", "f")), b"F"), assert_eq(os.listdir(os.path.join(b, "d2")), []))


def case_unsynced_unlink_brings_the_file_back(m, b):
    durable_file(m, "f", b"keep me")
    write_file(m.path("f"), b"KEEP", sync=False)  # not synced: the durable content comes back
    os.unlink(m.path("f"))
    return lambda: assert_eq(read(os.path.join(b, "f")), b"keep me")


def case_synced_unlink_is_kept(m, b):
    durable_file(m, "f", b"x")
    os.unlink(m.path("f"))
    sync_dir(m.mnt)
    return lambda: assert_eq(os.path.exists(os.path.join(b, "f")), False)


def case_unsynced_mkdir_loses_the_tree(m, b):
    os.mkdir(m.path("d"))
    write_file(m.path("d", "f"), b"x", sync=True)
    sync_dir(m.path("d"))  # d's entries are durable, but d's own name is not
    return lambda: assert_eq(os.listdir(b), [])


def case_unsynced_truncate_is_undone(m, b):
    durable_file(m, "f", bytes(range(256)) * 64)
    os.truncate(m.path("f"), 100)
    return lambda: assert_eq(read(os.path.join(b, "f")), bytes(range(256)) * 64)


def case_synced_truncate_is_kept(m, b):
    durable_file(m, "f", b"a" * 10000)
    fd = os.open(m.path("f"), os.O_WRONLY)
    os.ftruncate(fd, 5000)
    os.ftruncate(fd, 9000)  # the bytes 5000-9000 are zeros now
    os.fsync(fd)
    os.ftruncate(fd, 20000)  # unsynced extension
    os.close(fd)
    return lambda: assert_eq(read(os.path.join(b, "f")), b"a" * 5000 + bytes(4000))


def case_o_trunc_open_is_undone(m, b):
    durable_file(m, "f", b"content")
    write_file(m.path("f"), b"", flags=os.O_TRUNC)
    return lambda: assert_eq(read(os.path.join(b, "f")), b"content")


def case_o_dsync_write_is_durable(m, b):
    durable_file(m, "f", b"0" * 8192)
    fd = os.open(m.path("f"), os.O_WRONLY | os.O_DSYNC)
    os.pwrite(fd, b"meta", 4096)
    os.close(fd)
    return lambda: assert_eq(read(os.path.join(b, "f")), b"0" * 4096 + b"meta" + b"0" * 4092)


def case_mmap_store_without_msync_is_lost_and_with_msync_kept(m, b):
    durable_file(m, "a", b"\0" * 8192)
    durable_file(m, "b", b"\0" * 8192)
    for name, sync in (("a", False), ("b", True)):
        fd = os.open(m.path(name), os.O_RDWR)
        mm = mmap.mmap(fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        mm[4096:4100] = b"MMAP"
        if sync:
            mm.flush()  # msync(MS_SYNC)
        mm.close()
        os.close(fd)
    return lambda: (assert_eq(read(os.path.join(b, "a")), b"\0" * 8192),
                    assert_eq(read(os.path.join(b, "b")), b"\0" * 4096 + b"MMAP" + b"\0" * 4092))


def torn_case(seed):
    def case(m, b):
        durable_file(m, "f", b"o" * (64 * 4096))
        fd = os.open(m.path("f"), os.O_WRONLY)
        os.pwrite(fd, b"n" * (128 * 4096), 0)  # 64 pages rewritten, 64 new pages
        os.close(fd)

        def check():
            data = read(os.path.join(b, "f"))
            pages = [data[i:i + 4096] for i in range(0, len(data), 4096)]
            old = sum(1 for p in pages[:64] if p == b"o" * 4096)
            new = sum(1 for p in pages[:64] if p == b"n" * 4096)
            assert old + new == 64, "every page is whole, old or new"
            assert 0 < old < 64, "some unsynced pages kept, some dropped (seed %d): %d old" % (seed, old)
            for p in pages[64:]:
                assert p in (b"n" * 4096, bytes(4096)), "a new page past the durable size is kept or zeros"
            return data
        return check
    return case


def case_torn_is_deterministic(exe, work):
    results = []
    for _ in range(2):
        b, mnt = fresh(work)
        m = Mount(exe, b, mnt, torn=7)
        check = torn_case(7)(m, b)
        m.unmount()
        results.append(check())
    assert_eq(results[0], results[1])


def assert_eq(got, want):
    if got != want:
        g, w = repr(got), repr(want)
        raise AssertionError("got %s, expected %s" % (g[:200], w[:200]))


_n = [0]


def fresh(work):
    _n[0] += 1
    b = os.path.join(work, "b%d" % _n[0])
    mnt = os.path.join(work, "m%d" % _n[0])
    os.mkdir(b)
    os.mkdir(mnt)
    return b, mnt


def main():
    work = tempfile.mkdtemp(prefix="cutfs-test-")
    try:
        exe, why = unavailable(work)
        if exe is not None:
            try:
                b, mnt = fresh(work)
                Mount(exe, b, mnt).unmount()
            except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
                exe, why = None, "cannot mount FUSE here: %s" % e
        if exe is None:
            print("cutfs tests skipped: " + why)
            if os.environ.get("FERRY_REQUIRE_FUSE") == "1":
                print("0 passed, 1 failed (FERRY_REQUIRE_FUSE=1)")
                return 1
            print("0 passed, 0 failed, 1 skipped")
            return 0
        cases = [(k, v) for k, v in globals().items() if k.startswith("case_") and k != "case_torn_is_deterministic"]
        cases += [("case_torn_keeps_some_unsynced_pages_seed_%d" % s, torn_case(s)) for s in (1, 2, 3)]
        passed = failed = 0
        t0 = time.time()
        for name, case in cases:
            b, mnt = fresh(work)
            torn = int(name.rsplit("_", 1)[1]) if "torn" in name else None
            m = Mount(exe, b, mnt, torn=torn)
            try:
                check = case(m, b)
            except BaseException:
                m.unmount()
                raise
            cut = m.unmount()
            try:
                check()
                passed += 1
                print("ok   %s  (%s)" % (name[5:], cut))
            except AssertionError as e:
                failed += 1
                print("FAIL %s: %s  (%s)" % (name[5:], e, cut))
        try:
            case_torn_is_deterministic(exe, work)
            passed += 1
            print("ok   torn_is_deterministic")
        except AssertionError as e:
            failed += 1
            print("FAIL torn_is_deterministic: %s" % e)
        print("cutfs: %.1f s" % (time.time() - t0))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        for line in open("/proc/self/mounts"):
            if work in line.split()[1]:
                subprocess.run(["fusermount3", "-u", "-z", line.split()[1]])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
