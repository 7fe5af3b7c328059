#!/usr/bin/env python3
"""devicectl benchmark harness (`make bench`): devicectl side by side with GNU tar, bsdtar and sha256sum.

Generates a deterministic device-like tree (seeded), then runs each pair alternately (A B A B ...) on tmpfs
with a warm cache and reports the median wall time, median CPU time and peak RSS of each side and their ratio
(the median of the rounds' ratios; the ratio of the medians beside it).
Results go to bench/results.md (machine, versions, load, date). Absolute times on a shared machine are noise:
read the ratios, measured in the same run.

Also measured: issue 20's throughput pairs (backup, zstd, restore, verify, list) again with a busy loop pinned to
one core; what bounds each of their margins (user and system CPU per file, the floor on all cores); system calls
per file of backup, restore and list against GNU tar's (strace); where devicectl's time goes, per thread and per
library (perf); the scale run, start-up, the million-file point and the key derivation.

Usage: python3 bench/bench.py [--files N] [--megabytes M] [--runs R] [--scale 10000,50000,200000] [--no-strace]
[--no-perf]
A smoke run (`--files 400 --megabytes 2 --runs 1 --scale ''`) takes a few seconds.
"""
import argparse
import collections
import contextlib
import ctypes
import datetime
import fcntl
import hashlib
import json
import os
import platform
import plistlib
import random
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import time

FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_NODUMP_FL = 0x80086601, 0x40086602, 0x40
APPLE_XATTR = "user.com.apple.metadata:com_apple_backup_excludeItem"
APPLE_VALUE = plistlib.dumps("com.apple.backupd", fmt=plistlib.FMT_BINARY)
MANIFEST = ".devicectl-manifest.jsonl"
WORDS = ("article headline story update breaking local sports weather market opinion video photo "
         "subscriber offline cache token widget timeline refresh notification restore backup device "
         "string integer dict array key true false date data").split()
APPS = 8
RSS_REPORT = "/tmp/devicectl-bench-rss-%d" % os.getpid()  # GNU time's output (off the measured tmpfs tree)
MEDIA_FILES = 6          # large incompressible files, 25% of the bytes; two of them excluded
MEDIA_SHARE = 0.25
FILES_PER_DIRECTORY = 60  # small files are spread over numbered subdirectories of each place

# Where small files go inside an app's data container, their weight, and how they are excluded:
# "caches"/"tmp" (iOS rules, the directory is skipped), "apple-dir" (Apple xattr on the directory),
# "apple-file" (Apple xattr on 80% of the files), "nodump" (chattr +d on 70% of the files).
PLACES = [("Documents", 30, None), ("Documents/articles", 20, None), ("Library/Application Support", 12, None),
          ("Library/Caches", 13, "caches"), ("tmp", 5, "tmp"), ("Documents/offline", 6, "apple-dir"),
          ("Library/Preferences", 2, None), ("Documents/drafts", 6, "nodump"), ("Library/Downloads", 6, "apple-file")]


# MARK: - Tree generation

def change_nodump(path, on):
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("i", 0)))[0]
        flags = flags | FS_NODUMP_FL if on else flags & ~FS_NODUMP_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
    finally:
        os.close(fd)


def text_blob(rng, size):
    """Compressible plist-like text, different in every file."""
    count = size // 40 + 1
    keys, values, more = rng.choices(WORDS, k=count), rng.choices(WORDS, k=count), rng.choices(WORDS, k=count)
    numbers = rng.choices(range(100_000), k=count)
    lines = map("<key>%s</key><string>%s %s %d</string>\n".__mod__, zip(keys, values, more, numbers))
    return "".join(lines).encode()[:size]


def file_size(rng, cap):
    """Heavy-tailed (Pareto) sizes: most files a few KiB, a few hundreds of KiB."""
    return min(int(600 * rng.paretovariate(1.1)), 768 * 1024, cap)


def containers(root, kind):
    """{identifier: container path} from the containers' metadata plists."""
    base = os.path.join(root, kind)
    found = {}
    for uuid in sorted(os.listdir(base)):
        with open(os.path.join(base, uuid, ".com.apple.mobile_container_manager.metadata.plist"), "rb") as f:
            found[plistlib.load(f)["MCMMetadataIdentifier"]] = os.path.join(base, uuid)
    return found


def generate(devicectl, root, files, megabytes, seed):
    """A device root (`devicectl init` + `install`) with APPS apps and their App Groups, filled with about
    `files` files and `megabytes` MB. Returns {"files", "bytes", "excluded_files", "excluded_bytes",
    "included": set of ROOT-relative paths expected in a backup, "excluded": set expected absent}."""
    rng = random.Random(seed)
    run([devicectl, "init", root])
    for i in range(APPS):
        run([devicectl, "install", root, "--app", "com.bench.app%d" % i, "--group", "group.com.bench.app%d" % i])
    data, groups = containers(root, "Containers/Data/Application"), containers(root, "Containers/Shared/AppGroup")
    ids = sorted(data)
    for identifier in ids:
        for rel, _, kind in PLACES:
            os.makedirs(os.path.join(data[identifier], rel), exist_ok=True)
        os.setxattr(os.path.join(data[identifier], "Documents/offline"), APPLE_XATTR, APPLE_VALUE)
    stats = {"files": 0, "bytes": 0, "excluded_files": 0, "excluded_bytes": 0, "included": set(), "excluded": set()}

    def add(path, blob, excluded):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(blob)
        stats["files"] += 1
        stats["bytes"] += len(blob)
        if excluded:
            stats["excluded_files"] += 1
            stats["excluded_bytes"] += len(blob)
        stats["excluded" if excluded else "included"].add(os.path.relpath(path, root))

    small = max(1, files - MEDIA_FILES) if files else 0  # no files: the device layout alone (the fixed cost)
    media_bytes = int(megabytes * 1_000_000 * MEDIA_SHARE)
    average = max(1, (megabytes * 1_000_000 - media_bytes) // max(1, small))
    weights = [weight for _, weight, _ in PLACES]
    for n in range(small):
        identifier = ids[n % len(ids)]
        if n % 10 == 0:  # a tenth in the App Group
            directory, rel, kind = groups["group." + identifier], "Library/Shared", None
        else:
            directory, (rel, _, kind) = data[identifier], rng.choices(PLACES, weights)[0]
        bucket = "d%03d" % (n // (FILES_PER_DIRECTORY * APPS * 10))  # ~10 places an app: ~60 files a directory
        path = os.path.join(directory, rel, bucket, "item-%06d.%s" % (n, rng.choice(["json", "plist", "jpg", "dat"])))
        size = file_size(rng, average * 40)
        blob = text_blob(rng, size) if rng.random() < 0.6 else rng.randbytes(size)
        flag = kind in ("apple-file", "nodump") and rng.random() < (0.8 if kind == "apple-file" else 0.7)
        add(path, blob, kind in ("caches", "tmp", "apple-dir") or flag)
        if flag and kind == "apple-file":
            os.setxattr(path, APPLE_XATTR, APPLE_VALUE)
        elif flag:
            change_nodump(path, True)
    for m in range(MEDIA_FILES if files else 0):  # the last two excluded: one cached, one in the Apple-flagged offline directory
        rel = {MEDIA_FILES - 1: "Library/Caches", MEDIA_FILES - 2: "Documents/offline"}.get(m, "Documents")
        add(os.path.join(data[ids[m % len(ids)]], rel, "video-%d.mov" % m), rng.randbytes(media_bytes // MEDIA_FILES),
            rel != "Documents")
    return stats


def strip_exclusions(root):
    """A like-for-like copy: no xattr flags, no nodump, not a device root (so no iOS rules)."""
    shutil.rmtree(os.path.join(root, "DeviceLocal"))
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            try:
                os.removexattr(path, APPLE_XATTR)
            except OSError:
                pass
            change_nodump(path, False)


def check_archive(archive, stats):
    """The devicectl archive holds exactly the generated files it should (the benchmark measures a real backup)."""
    members = set(subprocess.run(["tar", "-tf", archive], capture_output=True, text=True, check=True).stdout.splitlines())
    missing = [p for p in stats["included"] if p not in members]
    present = [p for p in stats["excluded"] if p in members]
    if missing or present or MANIFEST not in members:
        raise SystemExit("devicectl archive is wrong: %d files missing (%s), %d excluded files present (%s)" % (
            len(missing), missing[:3], len(present), present[:3]))


# MARK: - Measuring

def measure(argv, setup=None):
    """Runs argv once (stdout/stderr to /dev/null); returns (wall s, CPU s, peak RSS MiB, user CPU s) of the command and its
    children. The peak RSS comes from GNU time, which forks the command: Linux keeps a process's RSS high-water
    mark across exec, so a child spawned straight from this Python process would report Python's own RSS."""
    if setup:
        setup()
    report = RSS_REPORT
    argv = ["/usr/bin/time", "-f", "%M", "-o", report, *argv]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("benchmark command failed: %s" % " ".join(argv[5:]))
    with open(report) as f:
        rss_kib = int(f.read().split()[-1])
    return wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024, usage.ru_utime


def warm_memory(work, nbytes):
    """Writes and deletes `nbytes` on the benchmark's file system before timing. On this VM the first touch of
    a page the guest has not used yet is slow (writing 4 GB of zeros to tmpfs took 9 s of system time) and how
    many such pages a run meets varies, which showed as 30-70% swings in both tools' system time on the 200k-file
    tree. Freed pages are reused first, so the runs after this meet pages that were touched already."""
    path, chunk = os.path.join(work, ".warm"), b"\0" * (8 << 20)
    with open(path, "wb") as f:
        for _ in range(max(1, nbytes // len(chunk))):
            f.write(chunk)
    os.unlink(path)


# Free page reporting (virtio-balloon): the guest kernel hands freed memory back to the hypervisor in 2 MiB blocks,
# and the next write to those pages faults them in again on the host. On this VM it runs all the time (tens of GB in
# a few minutes of writing and deleting archives), which is what makes the runs that write gigabytes swing.
PAGE_REPORTING = "/sys/module/page_reporting/parameters/reported_kib"


def reported_gb():
    """GB of freed memory this VM's kernel has handed back to its host so far, or None where it reports none."""
    try:
        with open(PAGE_REPORTING) as f:
            return int(f.read().split()[0]) * 1024 / 1e9
    except (OSError, ValueError, IndexError):
        return None


def steal_seconds():
    """CPU seconds this VM's virtual CPUs have waited for the host so far (steal time: /proc/stat's 8th field of the
    `cpu` line, in clock ticks), or None where the kernel reports none. A row's share of it says how much of the row
    the host took away: devicectl runs on both cores, so a stolen core costs it its second thread, while a one-thread
    peer loses only what falls on its core."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK") if fields[0] == "cpu" else None
    except (OSError, ValueError, IndexError):
        return None


def steal_share(before, started):
    """The percentage of the CPUs' time the host took since `before` = `steal_seconds()` at `started` =
    `time.monotonic()`, or None where the kernel reports no steal."""
    now = steal_seconds()
    if before is None or now is None:
        return None
    return 100 * (now - before) / (max(time.monotonic() - started, 1e-9) * len(os.sched_getaffinity(0)))


# The host's placement of the VM's two CPUs: bench/placement.c, built once per run, passes 128 KiB buffers from a
# thread pinned to CPU 0 to one pinned to CPU 1. On the 2-vCPU AMD EPYC VM of 2026-12-07 it read either about 6.7 or
# about 2.0 GB/s, for seconds at a time (the host had put the two CPUs near each other or far apart), and devicectl's
# two threads, which pass work and data between them, were 10-15% slower in the far rounds while a one-thread tar was
# not: each round of the main table reads it first, and a row says in how many of its rounds the CPUs were far apart.
PLACEMENT = {"binary": None, "readings": []}


def build_placement_probe(work):
    """Compiles bench/placement.c into `work` with the first C compiler found; without one the column stays empty."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "placement.c")
    binary = os.path.join(work, "placement")
    for compiler in ("cc", "gcc", "clang"):
        if shutil.which(compiler) and subprocess.run([compiler, "-O2", "-pthread", source, "-o", binary],
                                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            PLACEMENT["binary"] = binary
            return


def placement_gbps():
    """GB/s of 128 KiB hand-offs from CPU 0 to CPU 1 now, or None (no probe, or fewer than two CPUs)."""
    if PLACEMENT["binary"] is None or len(os.sched_getaffinity(0)) < 2:
        return None
    result = subprocess.run([PLACEMENT["binary"]], capture_output=True, text=True)
    try:
        value = float(result.stdout.split()[1])
    except (IndexError, ValueError):
        return None
    PLACEMENT["readings"].append(value)
    return value


def placement_text(row):
    """A row's placement cell: in how many of its rounds the two CPUs were far apart (a hand-off under half the
    run's 90th percentile: single readings go well above the usual), and the range of its readings."""
    readings = [x for x in row.get("handoff") or [] if x is not None]
    if not readings or not PLACEMENT["readings"]:
        return ""
    everything = sorted(PLACEMENT["readings"])
    far = sum(1 for x in readings if x < 0.5 * everything[int(0.9 * (len(everything) - 1))])
    return "%d of %d (%.1f-%.1f GB/s)" % (far, len(readings), min(readings), max(readings))


def pair(name, a, b, runs, b_label, target=None):
    """One unmeasured warm-up each, then A B A B ... `runs` times; returns a result row of medians."""
    return pairs([(name, a, b, b_label, target, 1)], runs)[0]


def pairs(entries, rounds, probe=True):
    """Like `pair` for several pairs at once, interleaved: each of `rounds` rounds runs every pair's A and B
    (`repeats` times in a row for a short one), so a burst of load on this shared machine lands on all of
    them alike instead of on whichever was being measured. `entries`: (name, a, b, b_label, target, repeats)."""
    load = os.getloadavg()[0]
    reported_before = reported_gb()
    stolen_before, started = steal_seconds(), time.monotonic()
    for _, a, b, _, _, _ in entries:
        measure(**a)
        measure(**b)
    samples = [{"a": [], "b": []} for _ in entries]
    handoffs = []  # `placement_gbps` before each round (`probe`: not beside the busy loop, which it would measure)
    for _ in range(rounds):
        if probe:
            handoffs.append(placement_gbps())
        for (_, a, b, _, _, repeats), sample in zip(entries, samples):
            for _ in range(repeats):
                for key, spec in (("a", a), ("b", b)):
                    sample[key].append(measure(**spec))
    rows = []
    # The share of the CPUs' time over these rounds that the host took (steal), for every row measured in them.
    stolen = steal_share(stolen_before, started)
    for (name, _, _, b_label, target, repeats), sample in zip(entries, samples):
        row = {"name": name, "b_label": b_label, "target": target, "load": load, "runs": rounds * repeats,
               "reported": None if reported_before is None else reported_gb() - reported_before, "steal": stolen,
               "handoff": handoffs}
        for key in ("a", "b"):
            walls, cpus, rss, users = zip(*sample[key])
            row[key] = (statistics.median(walls), statistics.median(cpus), max(rss))
            row[key + "_best"] = min(walls)
            row[key + "_user"] = statistics.median(users)
            row[key + "_sys"] = statistics.median(cpu - user for cpu, user in zip(cpus, users))
        # The ratio judged: the median over the rounds of each round's A / B (a run and the peer's run right
        # after it). This VM's bursts of slow system time last seconds to tens of seconds and slow both tools of
        # the rounds they cover alike (tar -cf's system time went from 0.37 s to 1.72 s in one), so a round's
        # ratio keeps its meaning where a side's median over 7 runs does not when a burst covers 3 of one side's
        # runs and 2 of the other's. The ratio of the medians is kept beside it.
        row["ratio"] = statistics.median(a[0] / b[0] for a, b in zip(sample["a"], sample["b"]))
        row["ratio_of_medians"], row["cpu_ratio"] = row["a"][0] / row["b"][0], row["a"][1] / row["b"][1]
        print("%-30s devicectl %.3fs %.2f CPU-s %.1f MiB | %-12s %.3fs %.2f CPU-s %.1f MiB | ratio %.2f" % (
            name, *row["a"], b_label, *row["b"], row["ratio"]), flush=True)
        # Every run, in order (wall/CPU seconds), for the log only: a row whose median moved shows whether all its
        # runs were slower or some of them (two modes), and on which side.
        print("    runs: devicectl %s | %s %s%s" % (
            " ".join("%.3f/%.2f" % (w, c) for w, c, _, _ in sample["a"]), b_label,
            " ".join("%.3f/%.2f" % (w, c) for w, c, _, _ in sample["b"]),
            "" if not any(handoffs) else " | hand-off GB/s " + " ".join(
                "-" if x is None else "%.1f" % x for x in handoffs)), flush=True)
        rows.append(row)
    return rows


def removing(*paths):
    """A setup step: remove each path (untimed), so no run pays for deleting the previous run's output."""
    def setup():
        for path in paths:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.unlink(path)
    return setup


def run(argv):
    """Runs an untimed step quietly; a failure stops the benchmark with the command's error output."""
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("bench: %s failed:\n%s" % (" ".join(argv), done.stderr.strip()))


def counting_arrival(devicectl, tree, archive, runs):
    """When the count alongside a backup arrives: the median share of the backup's time elapsed at its first
    progress line with a total, over `runs` runs (a run whose count never arrived counts as 1)."""
    shares = []
    for _ in range(runs):
        removing(archive)()
        done = subprocess.run([devicectl, "backup", tree, "-o", archive, "--progress", "--json"],
                              capture_output=True, text=True)
        lines = [json.loads(line) for line in done.stderr.splitlines() if '"type":"progress"' in line]
        if not lines:
            continue
        first = next((line["seconds"] for line in lines if line["total"] is not None), None)
        shares.append(1.0 if first is None else first / max(lines[-1]["seconds"], 0.1))
    return "total known after %.0f%% of the backup's time (median of %d runs)" % (
        100 * statistics.median(shares), len(shares)) if shares else "no progress lines"


def unavailable(devicectl, argv):
    """None when `argv` runs; the reason when devicectl says the command has not landed yet."""
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    if "not implemented" in done.stderr:
        return done.stderr.strip().removeprefix("devicectl: ")
    raise SystemExit("%s failed: %s" % (" ".join(argv), done.stderr.strip()))


def regular_paths(root):
    """The paths of the regular files a tree holds (what a like-for-like backup stores)."""
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if os.path.isfile(path) and not os.path.islink(path):
                yield path


def regular_files(root):
    """How many regular files a tree holds (the like-for-like rows' per-file costs' divisor)."""
    return sum(1 for _ in regular_paths(root))


def archive_files(archive):
    """How many regular files a tar archive holds (`tar -tvf` lines of type '-')."""
    listing = subprocess.run(["tar", "-tvf", archive], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in listing.splitlines() if line.startswith("-"))


def hashing_seconds(paths):
    """The CPU seconds SHA-256 of every byte of `paths` takes on this machine, in this run: OpenSSL's SHA-256 (Python's
    hashlib calls the libcrypto devicectl hashes with), the files read into memory first, each hashed whole; the
    best of three passes, less the same calls over empty input (the per-call cost of Python, not of hashing). A
    floor's part, not devicectl's: what any tool that keeps a SHA-256 of every file it stores must spend."""
    blobs = []
    for path in paths:
        with open(path, "rb") as f:
            blobs.append(f.read())
    best = None
    for _ in range(3):
        start = time.process_time()
        for blob in blobs:
            hashlib.sha256(blob).digest()
        hashed = time.process_time() - start
        start = time.process_time()
        for _ in blobs:
            hashlib.sha256(b"").digest()
        empty = time.process_time() - start
        best = hashed - empty if best is None else min(best, hashed - empty)
    return max(best, 0.0)


# MARK: - One core busy

@contextlib.contextmanager
def busy_loop(cpu):
    """A Python busy loop pinned to `cpu` for the block's duration; yields a function giving the CPU seconds it
    has had so far. Killed and waited for on the way out, whatever ends the block (an exception, Ctrl-C); the
    parent-death signal also kills it if this process is killed outright, before any `finally` can run."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it

    def pin():
        os.sched_setaffinity(0, {cpu})
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if os.sched_getaffinity(loop.pid) != {cpu}:
            raise SystemExit("bench: the busy loop is not pinned to CPU %d" % cpu)

        def spent():
            with open("/proc/%d/stat" % loop.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
        yield spent
    finally:
        loop.kill()
        loop.wait()


def busy_pairs(entries, rounds):
    """`pairs` again with one core busy (issue 20: "also with one core pinned busy"): a busy loop pinned to the
    machine's last CPU, devicectl and the peer unpinned, so the scheduler gives each whatever it can get beside
    the loop, as on a desktop with something else running. Returns (rows, {"cpu", "share": the loop's CPU time
    over the rounds' wall time}), or ([], {"skipped": why}) on a machine with a single CPU to run on."""
    cpus = sorted(os.sched_getaffinity(0))
    if (os.cpu_count() or 1) < 2 or len(cpus) < 2:
        return [], {"skipped": "%d CPU(s) on this machine, %d for this process: a busy loop would take the only one"
                    % (os.cpu_count() or 1, len(cpus))}
    cpu = cpus[-1]
    print("with a busy loop pinned to CPU %d:" % cpu, flush=True)
    with busy_loop(cpu) as spent:
        before, started = spent(), time.perf_counter()
        rows = pairs(entries, rounds, probe=False)
        share = (spent() - before) / (time.perf_counter() - started)
    for row in rows:
        row["busy"] = True
    return rows, {"cpu": cpu, "share": share}


# MARK: - Profiles

def perf_unusable(work):
    """None when `perf record` works here (tried once on `true`); otherwise why not."""
    if not shutil.which("perf"):
        return "`perf` is not on PATH"
    data = os.path.join(work, "perf-check.data")
    done = subprocess.run(["perf", "record", "-F", "1999", "-o", data, "--", "true"], capture_output=True, text=True)
    removing(data)()
    if done.returncode == 0:
        return None
    first = next((line.strip() for line in done.stderr.splitlines() if line.strip()), "no message")
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = f.read().strip()
    except OSError:
        paranoid = "unknown"
    return "`perf record` fails here (kernel.perf_event_paranoid = %s): %s" % (paranoid, first)


def dso_name(dso, devicectl):
    """A short name for a DSO as `perf script` prints it: kernel, devicectl, libcrypto, libc ..."""
    if dso in ("[kernel.kallsyms]", "[kernel.vmlinux]") or dso.startswith("[kernel"):
        return "kernel"
    if dso.startswith("["):
        return dso.strip("[]")  # [vdso], [unknown]
    if os.path.realpath(dso) == os.path.realpath(devicectl):
        return "devicectl"
    name = os.path.basename(dso)
    return name.split(".so")[0] if ".so" in name else name


def profile(devicectl, work, commands):
    """Where devicectl's time goes: one untimed `perf record -F 1999` run of each command (no call graphs; samples
    of every thread, the kernel's included), then its samples counted per thread and, within a thread, per DSO.
    `commands`: (name, argv, paths to remove before and after). Returns [(name, samples, [(tid, is main thread,
    share, [(dso, share within the thread)])])], threads largest first."""
    data, result = os.path.join(work, "perf.data"), []
    for name, argv, paths in commands:
        removing(data, *paths)()
        run(["perf", "record", "-F", "1999", "-o", data, "--", *argv])
        # `-F tid,dso` alone prints no DSO with perf 6.1: the DSO is printed with the sample's address. A line:
        # "  2639/2639   ffffffff81618bf7 ([kernel.kallsyms])".
        script = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,ip,dso"], capture_output=True, text=True)
        if script.returncode != 0:
            raise SystemExit("bench: perf script failed:\n%s" % script.stderr.strip())
        removing(data, *paths)()
        threads = collections.defaultdict(collections.Counter)
        for line in script.stdout.splitlines():
            fields = line.split()
            if not fields or "/" not in fields[0]:
                continue
            pid, tid = fields[0].split("/", 1)
            last = fields[-1]
            dso = last[1:-1] if len(fields) > 1 and last.startswith("(") and last.endswith(")") else "[unknown]"
            threads[(pid, tid)][dso_name(dso, devicectl)] += 1
        total = sum(sum(counter.values()) for counter in threads.values())
        ranked = sorted(threads.items(), key=lambda item: -sum(item[1].values()))
        result.append((name, total, [
            (tid, pid == tid, sum(counter.values()) / max(1, total),
             [(dso, count / sum(counter.values())) for dso, count in counter.most_common()])
            for (pid, tid), counter in ranked]))
    return result


# MARK: - The comparisons

def comparisons(devicectl, work, args):
    """The main table: devicectl against its peers on the device tree and on its like-for-like copy; then issue 20's
    five throughput pairs again with one core busy (`busy_pairs`) and, untimed, devicectl's side of them under
    `perf` (`profile`). Returns (stats, sizes, rows: the busy ones marked "busy", missing, busy, profiles)."""
    out = lambda name: os.path.join(work, name)
    tree, plain = out("device"), out("plain")
    print("generating %d files / %d MB in %s (seed %d) ..." % (args.files, args.megabytes, tree, args.seed), flush=True)
    stats = generate(devicectl, tree, args.files, args.megabytes, args.seed)
    run(["cp", "-a", tree, plain])
    strip_exclusions(plain)
    warm_memory(work, 6 * stats["bytes"])  # the archives and restored trees of the runs below
    runs = args.runs
    backup = lambda root, archive, *more: {"argv": [devicectl, "backup", root, "-o", archive, "--no-progress", *more],
                                           "setup": removing(archive)}
    peer = lambda archive, *argv: {"argv": list(argv), "setup": removing(archive)}
    archive = out("d.tar")
    run(backup(tree, archive)["argv"])
    check_archive(archive, stats)
    # The files a throughput row's tools store, for its per-file costs: every regular file of the like-for-like
    # tree; the device archive's regular members (the included files, the apps' metadata plists, the manifest).
    plain_files, device_files = regular_files(plain), archive_files(archive)
    again = []  # issue 20's throughput pairs, measured again with one core busy: `pairs` entries

    # SHA-256 of the bytes a row's devicectl side hashes (every stored file's content), measured once for each set:
    # with the peer's own CPU it makes the ideal floor in "What bounds each margin".
    print("timing SHA-256 of the stored files ...", flush=True)
    plain_hashing = hashing_seconds(regular_paths(plain))
    device_hashing = hashing_seconds(os.path.join(tree, p) for p in sorted(stats["included"]))

    def throughput(name, a, b, b_label, target, files, busy_target=None, twice=True, hashing=None):
        """A row with one of issue 20's throughput targets; `twice`: measured again with one core busy, where
        the target is `busy_target`; `hashing`: the CPU seconds SHA-256 of what devicectl hashes takes, where the
        peer hashes nothing and its work is the tar work devicectl does too (not zstd's: devicectl compresses
        otherwise, in frames, so the peer's CPU bounds nothing there)."""
        row = pair(name, a, b, runs, b_label, target)
        row["files"], row["hashing"] = files, hashing
        if twice:
            again.append(((name, a, b, b_label, busy_target, 1), (files, hashing)))
        return row

    zstd_backup = backup(plain, out("dp.tar.zst"), "--compression", "zstd")
    rows = [
        pair("backup (device tree)", backup(tree, out("d.tar")),
             peer(out("g.tar"), "tar", "-cf", out("g.tar"), "-C", tree, "."), runs, "tar -cf"),
        pair("backup (device tree)", backup(tree, out("d.tar")),
             peer(out("b.tar"), "bsdtar", "-cf", out("b.tar"), "-C", tree, "."), runs, "bsdtar -cf"),
        throughput("backup (like for like)", backup(plain, out("dp.tar")),
                   peer(out("gp.tar"), "tar", "-cf", out("gp.tar"), "-C", plain, "."), "tar -cf", 0.8, plain_files,
                   busy_target=1.1, hashing=plain_hashing),
        pair("backup (like for like)", backup(plain, out("dp.tar")),
             peer(out("bp.tar"), "bsdtar", "-cf", out("bp.tar"), "-C", plain, "."), runs, "bsdtar -cf"),
        # Over an archive that exists: devicectl writes a temporary file beside it and renames it over the old one,
        # so both are on tmpfs (in memory) until the rename; GNU tar truncates the old one first.
        pair("backup over an existing archive (like for like)",
             {"argv": [devicectl, "backup", plain, "-o", out("dp-over.tar"), "--no-progress"]},
             {"argv": ["tar", "-cf", out("gp-over.tar"), "-C", plain, "."]}, runs, "tar -cf (over it)"),
        throughput("backup zstd (like for like)", zstd_backup,
                   peer(out("gp.tar.zst"), "tar", "--zstd", "-cf", out("gp.tar.zst"), "-C", plain, "."), "tar --zstd",
                   0.8, plain_files),
        # zstd on every core (`tar --zstd` runs it on one): the fastest a tar user gets, reported beside the target.
        throughput("backup zstd (like for like)", zstd_backup,
                   peer(out("gpt.tar.zst"), "tar", "-I", "zstd -T0", "-cf", out("gpt.tar.zst"), "-C", plain, "."),
                   "tar -I 'zstd -T0'", None, plain_files, twice=False),
    ]
    # What counting the tree for the progress bar's percentage costs (issue 19: under 5%): with --progress the tree's
    # directory listings are read a second time, on an idle-only thread, alongside the backup.
    rows.append(pair("backup --progress (counts alongside)",
                     {"argv": [devicectl, "backup", tree, "-o", out("d.tar"), "--progress"], "setup": removing(out("d.tar"))},
                     backup(tree, out("d.tar")), runs, "--no-progress", 1.05))
    rows[-1]["note"] = counting_arrival(devicectl, tree, out("d.tar"), runs)
    # The MobileSync format against devicectl's own tar backup of the same device (issue 17: at most 1.5x).
    mobilesync = out("mobilesync")
    rows.append(pair("backup --format mobilesync (device tree)",
                     {"argv": [devicectl, "backup", tree, "--format", "mobilesync", "-o", mobilesync, "--no-progress"],
                      "setup": removing(mobilesync)},
                     backup(tree, out("d.tar")), runs, "devicectl backup (tar)", 1.5))
    rows[-1]["files"] = device_files  # into "What bounds each margin": its CPU per file and its two-core floor
    # The floor of any format that stores a file per file: `cp -a` reads each file and creates one (no index, no
    # records, no digests). The target above is against a tar; this row says how much of the gap is that.
    copy = out("copied")
    rows.append(pair("backup --format mobilesync (device tree)",
                     {"argv": [devicectl, "backup", tree, "--format", "mobilesync", "-o", mobilesync, "--no-progress"],
                      "setup": removing(mobilesync)},
                     {"argv": ["cp", "-a", tree, copy], "setup": removing(copy)}, runs, "cp -a"))
    removing(copy)()
    # Encryption against the plain MobileSync backup of the same tree (issue 18: at most 1.3x, plus the one key
    # derivation, measured apart below at the device's counts; here the counts are low so the files are what is timed).
    os.environ["DEVICECTL_BACKUP_PASSWORD"] = "bench password"
    encrypted = out("encrypted")
    sync_backup = lambda dest, *more: {
        "argv": [devicectl, "backup", tree, "--format", "mobilesync", "-o", dest, "--no-progress", *more],
        "setup": removing(dest)}
    low_counts = ("--encrypt", "--kdf-iterations", "1000,100")
    rows.append(pair("backup --format mobilesync --encrypt", sync_backup(encrypted, *low_counts), sync_backup(mobilesync),
                     runs, "mobilesync (plain)", 1.3))
    run(sync_backup(mobilesync)["argv"])
    run(sync_backup(encrypted, *low_counts)["argv"])
    sizes = {name: os.path.getsize(out(name)) for name in ("d.tar", "g.tar", "dp.tar", "gp.tar", "dp.tar.zst", "gp.tar.zst")}
    run(backup(tree, archive)["argv"])
    restored, extracted = out("restored"), out("extracted")
    missing = {}
    reason = unavailable(devicectl, [devicectl, "restore", archive, restored, "--no-progress"])
    if reason:
        missing["restore"] = reason
    else:
        rows.append(throughput("restore (device archive)",
                               {"argv": [devicectl, "restore", archive, restored, "--no-progress"],
                                "setup": removing(restored)},
                               {"argv": ["tar", "-xf", archive, "-C", extracted],
                                "setup": lambda: (removing(extracted)(), os.makedirs(extracted))}, "tar -xf", 0.7,
                               device_files, hashing=device_hashing))
        # MobileSync restore against devicectl's tar restore of the same device (issue 17: at most 1.5x), and the
        # encrypted backup's restore against the plain one's (issue 18: at most 1.3x).
        again_root = out("restored-again")
        restore = lambda backup, root: {"argv": [devicectl, "restore", backup, root, "--no-progress"], "setup": removing(root)}
        rows.append(pair("restore (MobileSync backup)", restore(mobilesync, restored), restore(archive, again_root), runs,
                         "devicectl restore (tar)", 1.5))
        rows.append(pair("restore (encrypted MobileSync)", restore(encrypted, restored), restore(mobilesync, again_root),
                         runs, "restore (plain MobileSync)", 1.3))
        removing(again_root)()
    for path in (mobilesync, encrypted):
        removing(path)()
    reason = unavailable(devicectl, [devicectl, "verify", archive])
    if reason:
        missing["verify"] = reason
    else:
        included = out("included.list")
        with open(included, "wb") as f:
            f.write(b"".join(os.path.join(tree, p).encode() + b"\0" for p in sorted(stats["included"])))
        rows.append(throughput("verify (device archive)", {"argv": [devicectl, "verify", archive]},
                               {"argv": ["xargs", "-0", "-a", included, "sha256sum"]}, "sha256sum", 0.5, device_files))
        rows.append(pair("verify (device archive)", {"argv": [devicectl, "verify", archive]},
                         {"argv": ["xargs", "-0", "-a", included, "openssl", "dgst", "-sha256"]}, runs, "openssl dgst"))
        # list reads and audits the whole archive; GNU tar lists a seekable one by seeking past each member's data.
        rows.append(throughput("list (device archive)", {"argv": [devicectl, "list", archive]},
                               {"argv": ["tar", "-tvf", archive]}, "tar -tvf", 1.0, device_files))
        # libarchive's own lister (bsdtar, seeking past the data, no audit): what parsing with libarchive costs.
        rows.append(pair("list (device archive)", {"argv": [devicectl, "list", archive]},
                         {"argv": ["bsdtar", "-tf", archive]}, runs, "bsdtar -tf"))
    # The same pairs with one core busy, interleaved (a burst of load lands on all of them alike).
    busy_rows, busy = busy_pairs([entry for entry, _ in again], runs)
    for row, (_, (files, hashing)) in zip(busy_rows, again):
        row["files"], row["hashing"] = files, hashing
    rows += busy_rows
    # Where devicectl's time goes (untimed, after every timed run): its side of the throughput pairs and MobileSync.
    profiles = {"skipped": "`--no-perf` was given"} if args.no_perf else {"skipped": perf_unusable(work)}
    if not profiles["skipped"]:
        commands = [("backup (like for like)", backup(plain, out("dp.tar"))["argv"], [out("dp.tar")])]
        if "restore" not in missing:
            commands.append(("restore (device archive)", [devicectl, "restore", archive, restored, "--no-progress"],
                             [restored]))
        if "verify" not in missing:
            commands += [("verify (device archive)", [devicectl, "verify", archive], []),
                         ("list (device archive)", [devicectl, "list", archive], [])]
        commands.append(("backup --format mobilesync (device tree)", sync_backup(mobilesync)["argv"], [mobilesync]))
        print("profiling devicectl (perf record) ...", flush=True)
        profiles = {"rows": profile(devicectl, work, commands)}
    # The trees and every archive: room for the scale run and the million-file point.
    for path in (tree, plain, restored, extracted) + tuple(out(n) for n in (
            "d.tar", "g.tar", "b.tar", "dp.tar", "gp.tar", "bp.tar", "dp-over.tar", "gp-over.tar", "dp.tar.zst",
            "gp.tar.zst", "gpt.tar.zst", "included.list")):
        removing(path)()
    return stats, sizes, rows, missing, busy, profiles


def scale(devicectl, work, args):
    """Backup of trees of growing size (same mix, ~5 kB a file): time per file and peak RSS. The first row is
    the fixed cost: a backup that stores no file, of the trees' device with its apps and their folders
    (Documents, Library, Caches, tmp ...: the same in every tree, whatever its size) and no file in them
    (process start, dynamic linking, device inventory, walking that layout, manifest, rename). It is subtracted
    from the other rows, so time per file there is the marginal cost of a file, which is what must stay flat as
    trees grow. All the trees are built first and measured in interleaved rounds (`pairs`): measured one after
    the other, a burst of this VM's slow system time that lasted through one tree's runs made that tree alone
    look slower per file."""
    counts = [int(c) for c in args.scale.split(",") if c]
    if not counts:
        return []
    entries, files, total = [], [], 0
    for count in [0] + counts:
        name = "scale-%d" % count
        root, archive, peer_archive = (os.path.join(work, n) for n in (name, name + ".tar", name + "-gnu.tar"))
        print("generating %d files for the scale run ..." % count, flush=True)
        stats = generate(devicectl, root, count, count * args.megabytes // max(1, args.files), args.seed)
        total += stats["bytes"]
        files.append(stats["files"])
        entries.append(("fixed cost (no files)" if count == 0 else "scale %d files" % count,
                        {"argv": [devicectl, "backup", root, "-o", archive, "--no-progress"], "setup": removing(archive)},
                        {"argv": ["tar", "-cf", peer_archive, "-C", root, "."], "setup": removing(peer_archive)},
                        "tar -cf", None, max(1, min(3, 30_000 // max(1, count)))))
    warm_memory(work, 3 * total)  # all the archives
    rows = pairs(entries, max(args.runs + 2, 9))
    for row, count in zip(rows, files):
        row["files"] = count
    # Peak RSS of a MobileSync backup and of its restore at the largest tree (issue 17: at most 64 MiB at 200k files).
    largest = os.path.join(work, "scale-%d" % counts[-1])
    backup, restored = largest + ".mobilesync", largest + ".restored"
    made = measure([devicectl, "backup", largest, "--format", "mobilesync", "-o", backup, "--no-progress"])
    back = measure([devicectl, "restore", backup, restored, "--no-progress"])
    rows[-1]["mobilesync"] = {"backup": made, "restore": back}
    for path in (backup, restored):
        removing(path)()
    for count in [0] + counts:  # the trees and archives: room for the million-file point
        name = os.path.join(work, "scale-%d" % count)
        removing(name, name + ".tar", name + "-gnu.tar")()
    return rows


def million(devicectl, work, args):
    """The scale point of a million small files (issue 20's targets: backup <= 0.9x `tar -cf`, restore <= 0.8x
    `tar -xf`, peak RSS <= 32 MiB). The tree is built once (minutes) with ~1 kB a file so that it, the two archives and
    one restored tree fit in memory together, made like-for-like (no exclusion flags, not a device root: both tools
    store every file), then backup and restore are measured against GNU tar in interleaved rounds. Each restore
    starts from an absent target and both restored trees are removed before every run, so only one exists at a time."""
    count = args.million
    if not count:
        return None
    # Each tree takes a 4 KiB page a file on tmpfs besides its inode and dentry (kernel memory, not counted on the
    # file system); the source tree and three archives at once (a backup over an existing archive writes the new one
    # beside the old) need about 14 KiB a file. Measured short of that, a run was killed by the OOM killer with others;
    # the restore rounds once were too, with the source tree still there (2026-12-04: 2 GB of other files on tmpfs).
    need = count * 16 * 1024
    vfs = os.statvfs(work)
    room = vfs.f_bavail * vfs.f_frsize
    available = next((int(line.split()[1]) * 1024 for line in open("/proc/meminfo") if line.startswith("MemAvailable:")), 0)
    if room < need or (work.startswith("/dev/shm") and available < need + (4 << 30)):
        reason = "needs %.0f GB free on %s and in memory; %.0f GB free there, %.0f GB of memory available" % (
            need / 1e9, work, room / 1e9, available / 1e9)
        print("million-file point skipped: " + reason, flush=True)
        return {"skipped": reason, "files": count}
    root = os.path.join(work, "million")
    print("generating %d files for the million-file point (minutes) ..." % count, flush=True)
    stats = generate(devicectl, root, count, max(1, count // 1000), args.seed)
    strip_exclusions(root)
    archive, peer_archive = os.path.join(work, "million.tar"), os.path.join(work, "million-gnu.tar")
    restored, extracted = os.path.join(work, "million-restored"), os.path.join(work, "million-extracted")
    rounds = max(3, args.runs // 4)
    warm_memory(work, 2 * stats["bytes"] + count * 4096)
    backup_row = pairs([("backup, %d files" % stats["files"],
                         {"argv": [devicectl, "backup", root, "-o", archive, "--no-progress"], "setup": removing(archive)},
                         {"argv": ["tar", "-cf", peer_archive, "-C", root, "."], "setup": removing(peer_archive)},
                         "tar -cf", 0.9, 1)], rounds)[0]
    # The same over the archives the last round left (devicectl: temporary file, then rename over the old one).
    over_row = pairs([("backup over the existing archive, %d files" % stats["files"],
                       {"argv": [devicectl, "backup", root, "-o", archive, "--no-progress"]},
                       {"argv": ["tar", "-cf", peer_archive, "-C", root, "."]}, "tar -cf (over it)", None, 1)], rounds)[0]
    listed = subprocess.run(["tar", "-tf", archive], capture_output=True, text=True, check=True).stdout.count("\n")
    if listed < stats["files"]:
        raise SystemExit("devicectl archive is wrong: %d members for %d files" % (listed, stats["files"]))

    # The restores need the archives, not the tree: removed first, so that a restored tree takes its place in memory.
    removing(root)()

    def extract_setup():
        removing(restored, extracted)()
        os.makedirs(extracted)
    restore_row = pairs([("restore, %d files" % stats["files"],
                          {"argv": [devicectl, "restore", archive, restored, "--no-progress"],
                           "setup": removing(restored, extracted)},
                          {"argv": ["tar", "-xf", peer_archive, "-C", extracted], "setup": extract_setup},
                          "tar -xf", 0.8, 1)], rounds)[0]
    removing(root, archive, peer_archive, restored, extracted)()
    return {"files": stats["files"], "bytes": stats["bytes"], "rows": [backup_row, over_row, restore_row]}


def startup(devicectl, work, args):
    """The fixed cost of a command (issue 20's targets): `--version`; `status`, `launch` and `widget-refresh` of a
    small device (3 apps, each with an App Group, one nudge widget, a log of 90 launches: 180 events); a backup of an
    empty 8-app device. Each in interleaved rounds with `tar --version` (a C tool's start, for scale): 31 rounds
    for 7 runs a side or more.
    Returns rows of (name, target ms, median ms, best ms) and the peer's median ms."""
    small, empty, archive = (os.path.join(work, n) for n in ("startup-small", "startup-empty", "startup-empty.tar"))
    run([devicectl, "init", small])
    for i in range(3):
        run([devicectl, "install", small, "--app", "com.bench.small%d" % i, "--group", "group.com.bench.small%d" % i])
    run([devicectl, "widget", "add", small, "--app", "com.bench.small0"])
    for i in range(90):
        run([devicectl, "launch", small, "--app", "com.bench.small%d" % (i % 3)])
    run([devicectl, "init", empty])
    for i in range(APPS):
        run([devicectl, "install", empty, "--app", "com.bench.empty%d" % i, "--group", "group.com.bench.empty%d" % i])
    peer = {"argv": ["tar", "--version"]}
    cases = [
        ("`--version`", 8, {"argv": [devicectl, "--version"]}),
        ("`status` (small device)", 15, {"argv": [devicectl, "status", small]}),
        ("`launch` (small device)", 15, {"argv": [devicectl, "launch", small, "--app", "com.bench.small1"]}),
        ("`widget-refresh` (small device)", 15, {"argv": [devicectl, "widget-refresh", small]}),
        ("backup of an empty 8-app device", 15,
         {"argv": [devicectl, "backup", empty, "-o", archive, "--no-progress"], "setup": removing(archive)}),
    ]
    rounds = min(31, 4 * args.runs + 3)  # 31 for make bench's 7 runs a side; a few for the smoke run
    rows = pairs([(name, spec, peer, "tar --version", target, 1) for name, target, spec in cases], rounds)
    removing(small, empty, archive)()
    return [(row["name"], row["target"], row["a"][0] * 1000, row["a_best"] * 1000, row["b"][0] * 1000) for row in rows]


def key_derivation(devicectl, work):
    """Seconds the one key derivation of an encrypted backup takes at the device's counts (PBKDF2-SHA256 10,000,000
    then PBKDF2-SHA1 10,000): an encrypted backup of a new device at those counts, less one at low counts
    (medians of 3)."""
    empty, out = os.path.join(work, "kdf-device"), os.path.join(work, "kdf-backup")
    run([devicectl, "init", empty])
    argv = [devicectl, "backup", empty, "--format", "mobilesync", "--encrypt", "-o", out, "--no-progress"]
    real = statistics.median(measure(argv, removing(out))[0] for _ in range(3))
    low = statistics.median(measure(argv + ["--kdf-iterations", "1000,100"], removing(out))[0] for _ in range(3))
    removing(out)()
    return real - low


SYSCALL_OPERATIONS = (("backup", "devicectl backup", "tar -cf"), ("restore", "devicectl restore", "tar -xf"),
                      ("list", "devicectl list", "tar -tvf"))


def syscalls(devicectl, work, args):
    """System calls per stored file (one untimed `strace -c -f` run each) on a like-for-like tree: devicectl backup
    against `tar -cf`; devicectl restore of devicectl's archive into an absent directory against `tar -xf` of the
    same archive into an empty one; devicectl list against `tar -tvf` of it. Returns (files, {label: {call: count}})."""
    if not shutil.which("strace") or not args.files:
        return None
    root, count = os.path.join(work, "strace"), min(args.files, 10_000)
    generate(devicectl, root, count, max(1, count * args.megabytes // args.files), args.seed)
    strip_exclusions(root)
    files = regular_files(root)
    archive, peer_archive = os.path.join(work, "t.tar"), os.path.join(work, "t-gnu.tar")
    restored, extracted = os.path.join(work, "strace-restored"), os.path.join(work, "strace-extracted")
    commands = {
        "devicectl backup": [devicectl, "backup", root, "-o", archive, "--no-progress"],
        "tar -cf": ["tar", "-cf", peer_archive, "-C", root, "."],
        "devicectl restore": [devicectl, "restore", archive, restored, "--no-progress"],
        "tar -xf": ["tar", "-xf", archive, "-C", extracted],
        "devicectl list": [devicectl, "list", archive],
        "tar -tvf": ["tar", "-tvf", archive],
    }
    result, report = {}, os.path.join(work, "strace.txt")
    for label, argv in commands.items():  # devicectl's backup first: the archive the others read
        if label == "tar -xf":
            os.makedirs(extracted)
        run(["strace", "-c", "-f", "-o", report, *argv])
        calls = {}
        for line in open(report):
            fields = line.split()
            if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                calls[fields[-1]] = int(fields[3])
        result[label] = calls
    removing(root, archive, peer_archive, restored, extracted, report)()
    return files, result


# MARK: - Report

def versions(devicectl):
    def first_line(*argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0].strip()
        except (OSError, IndexError):
            return "unknown"
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": "%s, %d cores, %.0f GiB RAM, Linux %s" % (
            model, os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, platform.release()),
        "tools": "; ".join(first_line(*argv) for argv in (
            [devicectl, "--version"], ["tar", "--version"], ["bsdtar", "--version"], ["zstd", "--version"],
            ["sha256sum", "--version"], ["openssl", "version"])) + "; " + multi_buffer_library(),
    }


def multi_buffer_library():
    """Whether Intel's multi-buffer library is installed (an encrypted MobileSync backup encrypts its small files
    several at a time with it, one by one through OpenSSL without it), and its version."""
    try:
        found = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libipsec-mb1"], capture_output=True, text=True)
    except OSError:
        return "libipsec-mb1 unknown (no dpkg-query)"
    if found.returncode == 0 and found.stdout.strip():
        return "libipsec-mb1 %s (encrypted MobileSync backups)" % found.stdout.strip()
    return "libipsec-mb1 not installed (encrypted MobileSync backups encrypt one file at a time)"


TABLE_HEADER = ["| comparison | devicectl wall | CPU | peak RSS | peer | wall | CPU | peak RSS | **ratio** | ratio of medians "
                "| CPU ratio | target | best-run ratio | load | host steal | CPUs far apart |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def table_rows(rows):
    """The main table's lines for `rows` (the same columns for the idle and the busy table)."""
    lines = []
    for row in rows:
        a, b, target = row["a"], row["b"], row["target"]
        verdict = "" if target is None else "<= %g: %s" % (target, "met" if row["ratio"] <= target else "**not met**")
        lines.append("| %s | %.3f s | %.3f s | %.1f MiB | %s | %.3f s | %.3f s | %.1f MiB | **%.2f** | %.2f | %.2f | %s | %.2f "
                     "| %.1f | %s | %s |" % (row["name"], *a, row["b_label"], *b, row["ratio"], row["ratio_of_medians"],
                                            row["cpu_ratio"], verdict, row["a_best"] / row["b_best"], row["load"],
                                            steal_text(row), placement_text(row)))
    return lines


def steal_text(row):
    """A row's host steal as a table cell: the percentage of the CPUs' time the host took during its rounds."""
    return "" if row.get("steal") is None else "%.1f%%" % row["steal"]


def bounds(rows, calls, cores):
    """"What bounds each margin" (issue 20): per throughput row, idle and busy, user and system CPU per stored file
    of each side, the floor (all cores, or what a busy loop leaves of them) and, where devicectl hashes what the peer
    does not, the ideal floor; then system calls per file from the strace run."""
    lines = ["", "## What bounds each margin", "",
             "**files**: the regular files each row's tools store: for like for like, every file of the like-for-like "
             "tree; for the device archive, its regular members (the included files, the apps' metadata plists and the "
             "manifest; sha256sum hashes the included files alone). µs per file: the median user and system CPU time "
             "(system = CPU - user, per run) over those files. **floor** = (devicectl's median CPU / %d CPUs) / "
             "the peer's median wall: the ratio devicectl would reach with its CPU spread over all %d cores for the "
             "whole run and nothing else running. A target below it cannot be met without cutting CPU. With one core "
             "busy the floor counts %g cores: the busy loop is one thread, and the scheduler shares its CPU evenly "
             "between it and one of devicectl's threads at most (two of them there would leave the other CPU idle). "
             "**SHA-256 µs/file**: OpenSSL's SHA-256 of the content of the files the row stores (devicectl keeps a "
             "digest of each in its manifest; the peer keeps none): every file of the like-for-like tree, the "
             "included files of the device archive (its apps' plists and manifest left out, so a little under), "
             "timed in this run apart from any tool (hashlib, the files in memory; best of three). **ideal floor** = "
             "(the peer's median CPU + that hashing) / the same cores / the peer's median wall: what a tool doing the "
             "peer's work at the peer's cost, and hashing "
             "every stored byte at OpenSSL's speed, would reach, perfectly spread and with nothing else to do "
             "(no pax header for the nanosecond time, no manifest, no members digest); given for the plain tar rows "
             "alone (a compressor of its own does other work than the peer's zstd). A target below it is out of "
             "reach of any tool that keeps these digests on this machine." % (cores, cores, cores - 0.5),
             "",
             "| comparison | peer | files | devicectl user µs/file | devicectl system µs/file | peer user µs/file "
             "| peer system µs/file | SHA-256 µs/file | CPU ratio | **ratio** | target | **floor** | ideal floor "
             "| target vs floor |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        files, target, hashing = row["files"], row["target"], row.get("hashing")
        usable = cores - 0.5 if row.get("busy") else cores
        floor = row["a"][1] / usable / row["b"][0]
        ideal = None if hashing is None else (row["b"][1] + hashing) / usable / row["b"][0]
        if target is None:
            verdict = "no target"
        elif ideal is not None and target < ideal:
            verdict = "**below the ideal floor**: out of reach of any tool keeping these digests here"
        elif target < floor:
            verdict = "**below the floor**: not reachable without cutting CPU"
        else:
            verdict = "above the floor: CPU alone does not rule it out"
        per_file = lambda seconds: seconds / files * 1e6
        lines.append("| %s%s | %s | %d | %.1f | %.1f | %.1f | %.1f | %s | %.2f | **%.2f** | %s | **%.2f** | %s | %s |" % (
            row["name"], ", one core busy" if row.get("busy") else "", row["b_label"], files,
            per_file(row["a_user"]), per_file(row["a_sys"]), per_file(row["b_user"]), per_file(row["b_sys"]),
            "" if hashing is None else "%.1f" % per_file(hashing), row["cpu_ratio"], row["ratio"],
            "" if target is None else "<= %g" % target, floor, "" if ideal is None else "%.2f" % ideal, verdict))
    if calls:
        files, result = calls
        total = lambda label: sum(result[label].values()) / files
        lines += ["", "System calls per file (the strace run below, a like-for-like tree of %d files): " % files +
                  "; ".join("%s %.2f against %s %.2f" % (label, total(label), peer, total(peer))
                            for _, label, peer in SYSCALL_OPERATIONS) + "."]
    return lines


def profile_lines(profiles):
    """One line a command: its samples, then per thread (largest first, at most 6) its share and top 3 DSOs."""
    if profiles.get("skipped"):
        return ["", "## Where the time goes (perf)", "", "Not profiled in this run: %s." % profiles["skipped"]]
    lines = ["", "## Where the time goes (`perf record -F 1999`, devicectl's side, one untimed run each)", "",
             "Samples of every thread, the kernel's included (no call graphs); per thread, largest first: its share "
             "of the command's samples, then its top three DSOs by share of the thread's samples (devicectl: the "
             "binary with its static Swift runtime).", ""]
    for name, total, threads in profiles["rows"]:
        parts = ["thread %d%s %.0f%% (%s)" % (rank, " (main)" if main else "", 100 * share,
                                              ", ".join("%s %.0f%%" % (dso, 100 * part) for dso, part in dsos[:3]))
                 for rank, (_, main, share, dsos) in enumerate(threads[:6], 1)]
        if len(threads) > 6:
            parts.append("%d more threads %.0f%%" % (len(threads) - 6, 100 * sum(t[2] for t in threads[6:])))
        lines.append("- %s: %d samples; %s" % (name, total, "; ".join(parts)))
    return lines


def write_results(args, info, work, stats, sizes, rows, missing, scale_rows, calls, million_point=None, starts=None,
                  busy=None, profiles=None):
    mib = lambda n: n / 2**20
    tree_mb = stats["bytes"] / 1e6
    run_steal = steal_share(info.get("steal_before"), info.get("started", 0))
    lines = [
        "# Benchmark results", "",
        "Written by `make bench` (bench/bench.py). Each pair ran alternately (A B A B ...) after one warm-up each, "
        "%d runs a side, on %s with a warm cache (and memory pages warmed: see `warm_memory`); times are medians, RSS the peak of any run (for a pipeline like "
        "`tar --zstd`, the largest process). **ratio** = the median over the rounds of devicectl's wall time / the "
        "peer's in the same round (issue 20's measure: medians of ratios of alternating runs), on which the targets "
        "are judged; **ratio of medians** = devicectl's median wall time / the peer's. Absolute times on this shared "
        "machine are noise: bursts of slow system time lasting seconds to tens of seconds slow every tool of the rounds "
        "they cover, which a round's ratio cancels and a median over one side's runs does not when a burst covers more "
        "of one side's runs than of the other's. **best-run ratio**: the fastest run of each side."
        % (args.runs, work), "",
        "- Date: %s" % info["date"], "- Machine: %s" % info["machine"],
        "- Load average (1 min) before / after: %.1f / %.1f (a shared machine; the benchmark's own runs count in it)"
        % (info["load_before"], os.getloadavg()[0]),
        "- Free page reporting: %s" % (
            "this VM's kernel handed %.1f GB of freed memory back to its host during the run (each page so handed back "
            "is slow to write again: the runs that write gigabytes swing with it)" % (reported_gb() - info["reported_before"])
            if info.get("reported_before") is not None else "none on this machine"),
        "- Host steal: %s" % (
            "the host took %.1f%% of this VM's CPU time during the run (**host steal** in the tables: each row's share "
            "over its rounds; devicectl's two threads lose one when a core is taken, a one-thread peer only what falls "
            "on its core, so a row with steal judges the host as much as the tools)" % run_steal
            if run_steal is not None else "not reported on this machine"),
        "- CPUs far apart: %s" % (
            "before each round the run passed 128 KiB buffers from a thread on CPU 0 to one on CPU 1 "
            "(bench/placement.c): %.1f to %.1f GB/s over the run. **CPUs far apart** in the tables: the rounds of a row "
            "whose hand-off ran under half the run's 90th percentile (the host had placed the VM's two CPUs far apart: "
            "devicectl's threads pass work and data to each other and were 10-15%% slower in such rounds, while a "
            "one-thread peer is out of reach of it; docs/PERFORMANCE.md, 2026-12-07); none with one core busy, where "
            "the probe would time the busy loop" % (min(PLACEMENT["readings"]), max(PLACEMENT["readings"]))
            if PLACEMENT["readings"] else "not measured (no C compiler, or one CPU)"),
        "- Versions: %s" % info["tools"],
        "- Tree (seed %d): %d files, %.0f MB in %d apps' data containers and App Groups (Documents, Library, "
        "Caches, tmp), 6 media files (25%% of the bytes), small files Pareto-sized, 60%% plist-like text; "
        "%.0f%% of the bytes (%d files) excluded by Apple xattr on files and on a directory, nodump, Library/Caches "
        "and tmp. Like for like: a copy with no flags that is not a device root (nothing excluded)."
        % (args.seed, stats["files"], tree_mb, APPS, 100 * stats["excluded_bytes"] / stats["bytes"], stats["excluded_files"]),
        "- Archive sizes: device tree devicectl %.1f MiB / GNU tar %.1f MiB; like for like %.1f / %.1f MiB; "
        "zstd %.1f / %.1f MiB" % tuple(mib(sizes[n]) for n in ("d.tar", "g.tar", "dp.tar", "gp.tar", "dp.tar.zst", "gp.tar.zst")),
        ""] + TABLE_HEADER
    idle, busy_rows = [row for row in rows if not row.get("busy")], [row for row in rows if row.get("busy")]
    lines += table_rows(idle)
    for command, reason in missing.items():
        lines.append("| %s | not measured: %s | | | | | | | | | | | |" % (command, reason))
    notes = ["- %s: %s." % (row["name"], row["note"]) for row in idle if row.get("note")]
    if notes:
        lines += [""] + notes
    if info["kdf_seconds"] is not None:
        lines += ["", "The encrypted rows use low key-derivation counts so that they time the files; the one derivation at "
                  "the device's counts (PBKDF2-SHA256 10,000,000 + PBKDF2-SHA1 10,000) adds %.2f s to any encrypted backup, "
                  "restore, verify or list (median of 3, measured apart)." % info["kdf_seconds"]]
    # Issue 20: "also with one core pinned busy (report both)".
    if busy and busy.get("skipped"):
        lines += ["", "## With one core busy", "", "Not measured: %s." % busy["skipped"]]
    elif busy:
        lines += ["", "## With one core busy (a busy loop pinned to CPU %d; both tools unpinned)" % busy["cpu"], "",
                  "Issue 20's throughput pairs again, interleaved, %d runs a side, while a Python busy loop spins on CPU "
                  "%d (it had %.0f%% of that CPU over the rounds); devicectl and the peer may run on any CPU."
                  % (args.runs, busy["cpu"], 100 * busy["share"]), ""] + TABLE_HEADER + table_rows(busy_rows)
    measured = [row for row in rows if row.get("files")]
    if measured:
        lines += bounds(measured, calls, len(os.sched_getaffinity(0)))
    if profiles:
        lines += profile_lines(profiles)
    if scale_rows:
        fixed, scale_rows = scale_rows[0], scale_rows[1:]
        fixed_wall, fixed_cpu = fixed["a"][0], fixed["a"][1]
        per_file = [row["a"][0] / row["files"] * 1e6 for row in scale_rows]
        net = lambda value, fixed_value, row: (value - fixed_value) / row["files"] * 1e6
        net_wall = [net(row["a"][0], fixed_wall, row) for row in scale_rows]
        net_best = [net(row["a_best"], fixed["a_best"], row) for row in scale_rows]
        net_cpu = [net(row["a"][1], fixed_cpu, row) for row in scale_rows]
        net_user = [net(row["a_user"], fixed["a_user"], row) for row in scale_rows]
        lines += ["", "## Scale (backup of the device tree: the same mix, ~5 kB a file)", "",
                  "Fixed cost, a backup storing no file (the same device: %d apps and their folders, with no file in "
                  "them; %d runs a side; all the trees measured in interleaved rounds): "
                  "devicectl %.1f ms wall, %.1f ms CPU, %.1f MiB; tar -cf %.1f ms. **net** = (time - fixed cost) / files: "
                  "the marginal cost of one more file. *best*: the fastest run of each side (this VM's first-touch page "
                  "faults only ever add system time, in bursts; the minimum is the least disturbed)."
                  % (APPS, fixed["runs"], 1e3 * fixed_wall, 1e3 * fixed_cpu, fixed["a"][2], 1e3 * fixed["b"][0]), "",
                  "| files | runs | devicectl wall | per file | **net per file** | best wall | **net per file, best** | CPU "
                  "| net CPU per file | net user CPU per file | peak RSS | tar -cf wall | per file | ratio | load |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for index, row in enumerate(scale_rows):
            lines.append("| %d | %d | %.3f s | %.1f µs | **%.1f µs** | %.3f s | **%.1f µs** | %.3f s | %.1f µs | %.1f µs "
                         "| %.1f MiB | %.3f s | %.1f µs | %.2f | %.1f |" % (
                             row["files"], row["runs"], row["a"][0], per_file[index],
                             net_wall[index], row["a_best"], net_best[index], row["a"][1], net_cpu[index],
                             net_user[index], row["a"][2], row["b"][0], row["b"][0] / row["files"] * 1e6,
                             row["ratio"], row["load"]))
        # The cost of the files added from one tree to the next (medians): no fixed cost to subtract.
        steps = [(fixed_wall, 0)] + [(row["a"][0], row["files"]) for row in scale_rows]
        incremental = [(t1 - t0) / (n1 - n0) * 1e6 for (t0, n0), (t1, n1) in zip(steps, steps[1:])]
        lines += ["", "Incremental cost per file, from one tree to the next (median walls; the first step starts at "
                  "the fixed cost): " + ", ".join("%s → %d: %.1f µs" % ("0" if n0 == 0 else str(n0), n1, value)
                                                 for ((_, n0), (_, n1)), value in zip(zip(steps, steps[1:]),
                                                                                       incremental)) + "."]
        spread = lambda values: max(values) / min(values) - 1
        verdict = lambda value: "met" if value <= 0.2 else "**not met**"
        relative = spread([row["ratio"] for row in scale_rows])
        peak = max(row["a"][2] for row in scale_rows)
        lines += ["", "Time per file, net of the fixed cost, across the scale run (target within 20%%): best runs %.0f%% "
                  "(%s); medians %.0f%% (%s); user CPU %.0f%% (%s, the part the kernel's noise does not reach); all CPU "
                  "%.0f%% (%s). Gross (fixed cost included, which weighs most on the smallest tree): %.0f%%. The wall "
                  "time relative to tar's on the same tree, in the same run, varies by %.0f%%. Peak RSS %.1f MiB "
                  "(target <= 32 MiB: %s)."
                  % (100 * spread(net_best), verdict(spread(net_best)), 100 * spread(net_wall),
                     verdict(spread(net_wall)), 100 * spread(net_user), verdict(spread(net_user)),
                     100 * spread(net_cpu), verdict(spread(net_cpu)), 100 * spread(per_file), 100 * relative, peak,
                     "met" if peak <= 32 else "**not met**")]
        sync = scale_rows[-1].get("mobilesync")
        if sync:
            lines += ["", "MobileSync at %d files (one run each): backup %.2f s, peak RSS %.1f MiB; restore %.2f s, peak RSS "
                      "%.1f MiB (target <= 64 MiB: %s)." % (
                          scale_rows[-1]["files"], sync["backup"][0], sync["backup"][2], sync["restore"][0],
                          sync["restore"][2], "met" if max(sync["backup"][2], sync["restore"][2]) <= 64 else "**not met**")]
    if starts:
        lines += ["", "## Start-up (fixed cost of a command; %d interleaved rounds with `tar --version`)"
                  % min(31, 4 * args.runs + 3), "",
                  "| command | devicectl median | best | `tar --version` median | target |", "|---|---|---|---|---|"]
        for name, target, median, best, peer in starts:
            lines.append("| %s | %.1f ms | %.1f ms | %.1f ms | <= %d ms: %s |" % (
                name, median, best, peer, target, "met" if median <= target else "**not met**"))
    if million_point and million_point.get("skipped"):
        lines += ["", "## A million files", "", "Not measured in this run: %s." % million_point["skipped"]]
    elif million_point:
        lines += ["", "## A million files (like-for-like tree, ~1 kB a file, built once; interleaved rounds)", "",
                  "%d files, %.0f MB. Each restore starts from an absent target; restored trees are removed before every run. "
                  "**memory handed back to the host**: freed memory this VM's kernel returned to the hypervisor during "
                  "the row's rounds (free page reporting): each archive written lands on pages that must be faulted in on "
                  "the host again, at a cost that varies with the host (writing 3 GB of zeros to tmpfs took 1.0 to 3.5 s "
                  "on 2026-12-06), so these rows swing from run to run whatever either tool does. **floor**: "
                  "devicectl's median CPU spread over all cores against the peer's median wall, as in \"What bounds each margin\"."
                  % (million_point["files"], million_point["bytes"] / 1e6), "",
                  "| case | runs | devicectl wall | CPU | peak RSS | peer | peer wall | peer CPU | ratio | ratio of medians "
                  "| best-run ratio | target | %d-core floor | load | memory handed back to the host | host steal |"
                  % len(os.sched_getaffinity(0)),
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in million_point["rows"]:
            best = row["a_best"] / row["b_best"]
            # Issue 20 sets targets for a backup and a restore from scratch; over an existing archive is measured
            # because it asked to say what that costs, with no target of its own.
            verdict = "" if row["target"] is None else "<= %.1f: %s" % (
                row["target"], "met" if row["ratio"] <= row["target"] else "**not met**")
            handed = "" if row.get("reported") is None else "%.1f GB" % row["reported"]
            floor = row["a"][1] / len(os.sched_getaffinity(0)) / row["b"][0]
            lines.append("| %s | %d | %.2f s | %.2f s | %.1f MiB | %s | %.2f s | %.2f s | **%.2f** | %.2f | %.2f | %s | %.2f "
                         "| %.1f | %s | %s |" % (row["name"], row["runs"], row["a"][0], row["a"][1], row["a"][2],
                                                row["b_label"], row["b"][0], row["b"][1], row["ratio"],
                                                row["ratio_of_medians"], best, verdict, floor, row["load"], handed,
                                                steal_text(row)))
        peak = max(row["a"][2] for row in million_point["rows"])
        lines += ["", "Peak RSS at %d files: %.1f MiB (target <= 32 MiB: %s)." % (
            million_point["files"], peak, "met" if peak <= 32 else "**not met**")]
    if calls:
        files, result = calls
        labels = [label for operation in SYSCALL_OPERATIONS for label in operation[1:]]
        names = sorted(set().union(*(result[label] for label in labels)),
                       key=lambda n: -sum(result[label].get(n, 0) for label in labels))
        lines += ["", "## System calls per stored file (`strace -c -f`, like-for-like tree of %d files)" % files, "",
                  "Backup of the tree; restore of devicectl's archive of it (devicectl into an absent directory, "
                  "`tar -xf` into an empty one); list of that archive. Calls under 0.05 a file on every side are left out.",
                  "", "| call | %s |" % " | ".join(labels), "|---|%s" % ("---|" * len(labels))]
        for name in names:
            counts = [result[label].get(name, 0) / files for label in labels]
            if max(counts) >= 0.05:
                lines.append("| %s | %s |" % (name, " | ".join("%.2f" % count for count in counts)))
        lines.append("| **total** | %s |" % " | ".join("**%.2f**" % (sum(result[label].values()) / files)
                                                       for label in labels))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print("\n" + text)


# MARK: - Main

def default_work(megabytes):
    """tmpfs when it has room for the trees and archives (about 6x the tree, or 6x the largest scale tree)."""
    need = megabytes * 1_000_000 * 6
    if os.path.isdir("/dev/shm"):
        vfs = os.statvfs("/dev/shm")
        if vfs.f_bavail * vfs.f_frsize > need:
            return "/dev/shm/devicectl-bench-%d" % os.getpid()
    return "/tmp/devicectl-bench-%d" % os.getpid()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devicectl", default=".build/release/devicectl")
    parser.add_argument("--files", type=int, default=40_000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--scale", default="10000,50000,200000", help="file counts for the scale run ('' to skip)")
    parser.add_argument("--million", type=int, default=0,
                        help="files in the million-file point (0 to skip; make bench sets 1000000)")
    parser.add_argument("--no-strace", action="store_true", help="skip the system-call count")
    parser.add_argument("--no-perf", action="store_true", help="skip the profiles (perf record) of devicectl's side")
    parser.add_argument("--no-kdf", action="store_true", help="skip timing the key derivation at the device's counts")
    parser.add_argument("--work", help="scratch directory (default: on /dev/shm when it has room)")
    parser.add_argument("--output", default="bench/results.md")
    args = parser.parse_args()
    devicectl = os.path.abspath(args.devicectl)
    if not os.access("/usr/bin/time", os.X_OK):
        raise SystemExit("bench: needs GNU time (/usr/bin/time, Debian package 'time') to measure peak RSS")
    largest = max([args.files] + [int(c) for c in args.scale.split(",") if c])
    work = args.work or default_work(largest * args.megabytes // max(1, args.files))
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    info = versions(devicectl)
    build_placement_probe(work)
    info["load_before"] = os.getloadavg()[0]
    info["reported_before"] = reported_gb()
    info["steal_before"], info["started"] = steal_seconds(), time.monotonic()
    started = time.perf_counter()
    try:
        starts = startup(devicectl, work, args)
        stats, sizes, rows, missing, busy, profiles = comparisons(devicectl, work, args)
        scale_rows = scale(devicectl, work, args)
        million_point = million(devicectl, work, args)
        info["kdf_seconds"] = None if args.no_kdf else key_derivation(devicectl, work)
        calls = None if args.no_strace else syscalls(devicectl, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(RSS_REPORT):
            os.unlink(RSS_REPORT)
    write_results(args, info, work, stats, sizes, rows, missing, scale_rows, calls, million_point, starts, busy,
                  profiles)
    print("bench: done in %.0f s" % (time.perf_counter() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
