// FuzzSeeds: the valid archives the fuzzer mutates, made by the real backup engine (and one by GNU tar):
// every member kind, pax headers, xattrs, a device with an app, compressed variants, a GNU sparse archive.
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport

/// One valid archive to mutate.
struct FuzzSeed {
    let name: String
    let bytes: [UInt8]
    /// An uncompressed tar (structural mutations apply); false for gzip/zstd streams (byte mutations only).
    let plain: Bool
    /// Made by devicectl (has a manifest): a restore must verify it.
    let hasManifest: Bool
}

enum FuzzSeeds {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    /// Builds the seeds in `scratch` (a directory that may be removed afterwards).
    static func make(in scratch: String) throws -> [FuzzSeed] {
        let mixed = scratch + "/mixed"
        try makeMixedTree(mixed)
        let phone = scratch + "/phone"
        try makeDevice(phone)
        var seeds: [FuzzSeed] = []
        for (name, root, compression) in [
            ("mixed.tar", mixed, Compression.none), ("device.tar", phone, .none),
            ("mixed.tar.gz", mixed, .gzip), ("device.tar.zst", phone, .zstd),
        ] {
            let archive = "\(scratch)/\(name)"
            _ = try BackupEngine.backup(
                BackupRequest(
                    root: root, output: .file(archive), compression: compression, created: created,
                    tool: "devicectl fuzz"),
                warning: { _ in })
            seeds.append(FuzzSeed(name: name, bytes: try read(archive), plain: compression == .none, hasManifest: true))
        }
        // GNU tar's own format: long-name ('L') headers and old GNU sparse members, no manifest.
        let gnu = "\(scratch)/gnu.tar"
        let made = try Shell.run("tar", ["--format=gnu", "--sparse", "--numeric-owner", "-C", mixed, "-cf", gnu, "."])
        guard made.status == 0 else { throw FuzzSetupError("tar: \(made.stderr)") }
        seeds.append(FuzzSeed(name: "gnu.tar", bytes: try read(gnu), plain: true, hasManifest: false))
        return seeds
    }

    /// Files of awkward sizes around the 512-byte block, a 70 kB file, an empty file, unicode and long
    /// names (pax), an empty directory, a sticky directory, symlinks, a hard link pair, user xattrs, a sparse file.
    static func makeMixedTree(_ root: String) throws {
        let files: [(String, Int, mode_t)] = [
            ("a.txt", 5, 0o644), ("docs/empty", 0, 0o600), ("docs/block", 512, 0o640), ("docs/block+1", 513, 0o644),
            ("docs/block-1", 511, 0o755), ("docs/big.bin", 70_000, 0o644), ("docs/ünïcødé näme.txt", 20, 0o644),
            ("docs/" + String(repeating: "long-name-", count: 12) + "end.txt", 30, 0o644),
        ]
        for (relative, size, mode) in files {
            let path = "\(root)/\(relative)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }).write(
                to: URL(fileURLWithPath: path))
            chmod(path, mode)
        }
        try FileManager.default.createDirectory(atPath: "\(root)/empty-dir", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/shared", withIntermediateDirectories: true)
        chmod("\(root)/shared", 0o1777)
        symlink("../a.txt", "\(root)/docs/link")
        symlink("nowhere", "\(root)/docs/dangling")
        link("\(root)/docs/block", "\(root)/docs/block-again")
        try ExtendedAttributes.set("user.note", to: Array("kept".utf8), at: "\(root)/a.txt")
        try ExtendedAttributes.set("user.binary", to: [0, 1, 255], at: "\(root)/docs")
        let sparse = open("\(root)/docs/sparse", O_WRONLY | O_CREAT, 0o644)
        _ = pwrite(sparse, "end", 3, 200_000)
        close(sparse)
        try pinTimes(root)
        var times = [
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
        ]
        utimensat(AT_FDCWD, "\(root)/a.txt", &times, 0)
    }

    /// Gives every entry under `root` (and `root`) one fixed time, deepest first (a directory's time moves when an
    /// entry is made in it): the archives then hold the same bytes from run to run, so that case N of a seed
    /// mutates the same bytes every time (pax time records would otherwise change length with the nanoseconds).
    static func pinTimes(_ root: String) throws {
        var paths = [root]
        guard let walk = FileManager.default.enumerator(atPath: root) else { throw FuzzSetupError("cannot list \(root)") }
        while let relative = walk.nextObject() as? String { paths.append(root + "/" + relative) }
        var times = [timespec(tv_sec: 1_780_000_000, tv_nsec: 0), timespec(tv_sec: 1_780_000_000, tv_nsec: 0)]
        for path in paths.sorted(by: { $0.count > $1.count })
        where utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) != 0 {
            throw FuzzSetupError("utimensat \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `makeMixedTree` at `dir/src`, backed up in-process to `dir/backup.tar` (at `created`); returns the archive.
    static func mixedBackup(in dir: String) throws -> String {
        try makeMixedTree(dir + "/src")
        let archive = dir + "/backup.tar"
        _ = try BackupEngine.backup(
            BackupRequest(root: dir + "/src", output: .file(archive), created: created, tool: "devicectl test"),
            warning: { _ in })
        return archive
    }

    /// A device with one app (group, widget on the home screen), a document and a defaults value.
    static func makeDevice(_ root: String) throws {
        let device = try TestPhone(root, apps: ["com.example.news"], now: created).device
        try device.defaults("com.example.news").set("articlesRead", to: 3)
        let data = try device.container(.data, identifier: "com.example.news")!.path
        try FileManager.default.createDirectory(atPath: data + "/Documents", withIntermediateDirectories: true)
        try Data("saved article\n".utf8).write(to: URL(fileURLWithPath: data + "/Documents/article.txt"))
        try pinTimes(root)
    }

    static func read(_ path: String) throws -> [UInt8] {
        try FileDescriptor.open(path, flags: O_RDONLY).readAll()
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
