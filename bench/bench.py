#!/usr/bin/env python3
"""devicectl benchmark harness (`make bench`): devicectl side by side with GNU tar, bsdtar and sha256sum.

Generates a deterministic device-like tree (seeded), then runs each pair alternately (A B A B ...) on tmpfs
with a warm cache and reports median wall time, CPU time and peak RSS of each side and their ratio.
Results go to bench/results.md (machine, versions, date). Absolute times on a shared machine are noise:
read the ratios, measured in the same run.
"""
import argparse
import datetime
import fcntl
import os
import platform
import plistlib
import random
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import time

FS_IOC_SETFLAGS = 0x40086602
FS_IOC_GETFLAGS = 0x80086601
FS_NODUMP_FL = 0x40
APPLE_XATTR = "user.com.apple.metadata:com_apple_backup_excludeItem"
APPLE_VALUE = plistlib.dumps("com.apple.backupd", fmt=plistlib.FMT_BINARY)
WORDS = ("article headline story update breaking local sports weather market opinion video photo "
         "subscriber offline cache token widget timeline refresh notification restore backup device "
         "string integer dict array key true false date data").split()


# MARK: - Tree generation

def set_nodump(path):
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        buf = fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("i", 0))
        flags = struct.unpack("i", buf)[0] | FS_NODUMP_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
    finally:
        os.close(fd)


def text_blob(rng, size):
    """Compressible, plist/JSON-like text."""
    parts, total = [], 0
    while total < size:
        line = "<key>%s</key><string>%s %s %d</string>\n" % (
            rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS), rng.randrange(100000))
        parts.append(line)
        total += len(line)
    return "".join(parts).encode()[:size]


def file_size(rng):
    """Heavy-tailed (Pareto) sizes: most files a few KiB, a few hundreds of KiB."""
    return min(int(600 * rng.paretovariate(1.1)), 768 * 1024)


def containers(root, kind):
    base = os.path.join(root, kind)
    result = {}
    for uuid in sorted(os.listdir(base)):
        with open(os.path.join(base, uuid, ".com.apple.mobile_container_manager.metadata.plist"), "rb") as f:
            result[plistlib.load(f)["MCMMetadataIdentifier"]] = os.path.join(base, uuid)
    return result


def generate(devicectl, root, files, megabytes, seed, apps=8):
    """A device root with `apps` apps, an App Group each, ~`files` files and ~`megabytes` MB of data."""
    rng = random.Random(seed)
    subprocess.run([devicectl, "init", root], check=True, stdout=subprocess.DEVNULL)
    for i in range(apps):
        subprocess.run([devicectl, "install", root, "--app", "com.bench.app%d" % i, "--group", "group.com.bench.app%d" % i],
                       check=True, stdout=subprocess.DEVNULL)
    data = containers(root, "Containers/Data/Application")
    groups = containers(root, "Containers/Shared/AppGroup")
    target_bytes = megabytes * 1_000_000
    media_count = 6
    media_bytes = int(target_bytes * 0.25)
    small_budget = target_bytes - media_bytes
    written = 0
    made = 0
    # Where files go, with their share: (relative dir within a data container, exclusion kind)
    places = [("Documents", None), ("Documents/articles", None), ("Library/Application Support", None),
              ("Library/Caches", "caches"), ("tmp", "tmp"), ("Documents/offline", "apple-dir"),
              ("Library/Preferences", None), ("Documents/drafts", "nodump-some"), ("Library/Downloads", "apple-file")]
    weights = [30, 20, 12, 13, 5, 6, 2, 6, 6]
    ids = sorted(data)
    for identifier in ids:
        for rel, kind in places:
            os.makedirs(os.path.join(data[identifier], rel), exist_ok=True)
        offline = os.path.join(data[identifier], "Documents/offline")
        os.setxattr(offline, APPLE_XATTR, APPLE_VALUE)
    avg = max(1, small_budget // max(1, files - media_count))
    while made < files - media_count:
        identifier = ids[made % len(ids)]
        rel, kind = rng.choices(places, weights)[0]
        if made % 10 == 0:
            directory = groups["group." + identifier]
            rel, kind = "Library/Shared", None
        else:
            directory = data[identifier]
        path = os.path.join(directory, rel, "item-%06d.%s" % (made, rng.choice(["json", "plist", "jpg", "dat"])))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        size = min(file_size(rng), avg * 40)
        blob = text_blob(rng, size) if rng.random() < 0.6 else rng.randbytes(size)
        with open(path, "wb") as f:
            f.write(blob)
        if kind == "apple-file" and rng.random() < 0.8:
            os.setxattr(path, APPLE_XATTR, APPLE_VALUE)
        elif kind == "nodump-some" and rng.random() < 0.7:
            set_nodump(path)
        written += size
        made += 1
    for m in range(media_count):
        identifier = ids[m % len(ids)]
        path = os.path.join(data[identifier], "Documents", "video-%d.mov" % m)
        with open(path, "wb") as f:
            remaining = media_bytes // media_count
            while remaining > 0:
                chunk = min(remaining, 1 << 20)
                f.write(rng.randbytes(chunk))
                remaining -= chunk
        written += media_bytes // media_count
        made += 1
    return made, written


def strip_exclusions(root):
    """A like-for-like copy: no xattr flags, no nodump, not a device root (so no iOS rules)."""
    shutil.rmtree(os.path.join(root, "DeviceLocal"))
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = os.path.join(directory, name)
            try:
                os.removexattr(path, APPLE_XATTR, follow_symlinks=False)
            except OSError:
                pass
            if not os.path.islink(path):
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                buf = fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("i", 0))
                flags = struct.unpack("i", buf)[0] & ~FS_NODUMP_FL
                fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
                os.close(fd)


# MARK: - Measuring

def measure(argv, setup=None, cwd=None):
    """Runs argv once; returns (wall seconds, cpu seconds, peak RSS MiB) of that child alone."""
    if setup:
        setup()
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]) if cwd is None else None
    if cwd is not None:
        pid = os.fork()
        if pid == 0:
            os.chdir(cwd)
            devnull = os.open("/dev/null", os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.execvp(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("benchmark command failed: %s" % " ".join(argv))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def pair(name, a, b, runs, a_label, b_label):
    """Alternates A and B `runs` times each; returns a result row."""
    samples = {"a": [], "b": []}
    for _ in range(runs):
        for key, spec in (("a", a), ("b", b)):
            samples[key].append(measure(**spec))
    row = {"name": name, "a_label": a_label, "b_label": b_label}
    for key in ("a", "b"):
        walls, cpus, rss = zip(*samples[key])
        row[key] = (statistics.median(walls), statistics.median(cpus), max(rss))
    row["ratio"] = row["a"][0] / row["b"][0]
    print("%-34s %s %.3fs  vs  %s %.3fs  ratio %.2f" % (name, a_label, row["a"][0], b_label, row["b"][0], row["ratio"]),
          flush=True)
    return row


def fresh_dir(path):
    def setup():
        if os.path.exists(path):
            shutil.rmtree(path)
    return setup


def versions(devicectl):
    def first_line(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "unknown"
    model = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": "%s, %d cores, %.0f GiB RAM, kernel %s" % (
            model, os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, platform.release()),
        "devicectl": first_line([devicectl, "--version"]),
        "tar": first_line(["tar", "--version"]),
        "bsdtar": first_line(["bsdtar", "--version"]),
        "zstd": first_line(["zstd", "--version"]),
    }


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devicectl", default=".build/release/devicectl")
    parser.add_argument("--files", type=int, default=40_000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--scale", default="10000,50000,200000", help="file counts for the scale run ('' to skip)")
    parser.add_argument("--work", default="/dev/shm/devicectl-bench" if os.path.isdir("/dev/shm") else "/tmp/devicectl-bench")
    parser.add_argument("--output", default="bench/results.md")
    args = parser.parse_args()
    devicectl = os.path.abspath(args.devicectl)
    work = args.work
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    try:
        rows, scale_rows = run(devicectl, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_results(args, versions(devicectl), rows, scale_rows)


def run(devicectl, work, args):
    tree = os.path.join(work, "device")
    print("generating %d files / %d MB in %s (seed %d) ..." % (args.files, args.megabytes, tree, args.seed), flush=True)
    made, written = generate(devicectl, tree, args.files, args.megabytes, args.seed)
    plain = os.path.join(work, "plain")
    subprocess.run(["cp", "-a", tree, plain], check=True)
    strip_exclusions(plain)
    out = lambda name: os.path.join(work, name)
    runs = args.runs
    # Warm the cache.
    subprocess.run(["tar", "-cf", "/dev/null", "-C", tree, "."], check=True)
    rows = [
        pair("backup (device tree)", {"argv": [devicectl, "backup", tree, "-o", out("d.tar"), "--no-progress"]},
             {"argv": ["tar", "-cf", out("g.tar"), "-C", tree, "."]}, runs, "devicectl", "tar -cf"),
        pair("backup vs bsdtar (device tree)", {"argv": [devicectl, "backup", tree, "-o", out("d.tar"), "--no-progress"]},
             {"argv": ["bsdtar", "-cf", out("b.tar"), "-C", tree, "."]}, runs, "devicectl", "bsdtar -cf"),
        pair("backup (like for like)", {"argv": [devicectl, "backup", plain, "-o", out("dp.tar"), "--no-progress"]},
             {"argv": ["tar", "-cf", out("gp.tar"), "-C", plain, "."]}, runs, "devicectl", "tar -cf"),
        pair("backup zstd (like for like)",
             {"argv": [devicectl, "backup", plain, "-o", out("dp.tar.zst"), "--compression", "zstd", "--no-progress"]},
             {"argv": ["tar", "--zstd", "-cf", out("gp.tar.zst"), "-C", plain, "."]}, runs, "devicectl", "tar --zstd"),
    ]
    archive = out("d.tar")
    subprocess.run([devicectl, "backup", tree, "-o", archive, "--no-progress"], check=True)
    restored, extracted = out("restored"), out("extracted")
    os.makedirs(extracted, exist_ok=True)
    rows.append(pair(
        "restore", {"argv": [devicectl, "restore", archive, restored, "--no-progress"], "setup": fresh_dir(restored)},
        {"argv": ["tar", "-xf", archive], "cwd": extracted,
         "setup": lambda: (shutil.rmtree(extracted), os.makedirs(extracted))},
        runs, "devicectl", "tar -xf"))
    included = out("included.list")
    listing = subprocess.run(["tar", "-tf", archive], capture_output=True, text=True, check=True).stdout.splitlines()
    with open(included, "wb") as f:
        for name in listing:
            path = os.path.join(tree, name)
            if name != ".devicectl-manifest.jsonl" and os.path.isfile(path) and not os.path.islink(path):
                f.write(path.encode() + b"\0")
    rows.append(pair("verify", {"argv": [devicectl, "verify", archive]},
                     {"argv": ["xargs", "-0", "-a", included, "sha256sum"]}, runs, "devicectl", "sha256sum"))
    scale_rows = []
    for count in [int(c) for c in args.scale.split(",") if c]:
        root = os.path.join(work, "scale-%d" % count)
        made, _ = generate(devicectl, root, count, max(1, count // 200), args.seed)
        row = pair("scale %d files" % count, {"argv": [devicectl, "backup", root, "-o", out("s.tar"), "--no-progress"]},
                   {"argv": ["tar", "-cf", out("sg.tar"), "-C", root, "."]}, max(3, runs // 2), "devicectl", "tar -cf")
        row["files"] = made
        scale_rows.append(row)
        shutil.rmtree(root)
    return rows, scale_rows


def write_results(args, info, rows, scale_rows):
    lines = ["# Benchmark results", "",
             "Measured by `make bench` (bench/bench.py). Each pair ran alternately, %d runs each, on tmpfs with a warm cache;"
             % args.runs, "times are medians, RSS the peak. The ratio is devicectl's wall time over its peer's, in the same run.",
             "", "- Date: %s" % info["date"], "- Machine: %s" % info["machine"],
             "- Versions: %s; %s; %s; %s" % (info["devicectl"], info["tar"], info["bsdtar"], info["zstd"]),
             "- Tree: %d files requested, %d MB, seed %d (device-like: 8 apps, App Groups, Caches/tmp, media, "
             "~30%% of bytes excluded by Apple xattr on files and a directory, nodump, Caches/tmp)" % (args.files, args.megabytes, args.seed),
             "", "| comparison | devicectl wall | cpu | peak RSS | peer | peer wall | cpu | peak RSS | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        a, b = row["a"], row["b"]
        lines.append("| %s | %.3f s | %.3f s | %.1f MiB | %s | %.3f s | %.3f s | %.1f MiB | **%.2f** |" % (
            row["name"], a[0], a[1], a[2], row["b_label"], b[0], b[1], b[2], row["ratio"]))
    if scale_rows:
        lines += ["", "## Scale", "", "| files | devicectl wall | per file | peak RSS | tar -cf wall | ratio |", "|---|---|---|---|---|---|"]
        for row in scale_rows:
            a, b = row["a"], row["b"]
            lines.append("| %d | %.3f s | %.1f µs | %.1f MiB | %.3f s | %.2f |" % (
                row["files"], a[0], a[0] / row["files"] * 1e6, a[2], b[0], row["ratio"]))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print("\n" + text)


if __name__ == "__main__":
    main()
