// Phone+Migration: backing a phone up and restoring the archive onto a new phone, the ways users do it.
import Foundation
import TestSupport
import Testing

extension Phone {
    /// How the archive travels from the old phone to the new one.
    enum Transfer: String, CaseIterable, Sendable, CustomStringConvertible {
        case tar, gzip, zstd, xz
        /// `backup -o - | restore -`: a real pipe between the two commands, no archive file.
        case pipe

        var description: String { rawValue }
        var compression: String { self == .tar || self == .pipe ? "none" : rawValue }
        var fileExtension: String {
            switch self {
            case .tar, .pipe: "tar"
            case .gzip: "tar.gz"
            case .zstd: "tar.zst"
            case .xz: "tar.xz"
            }
        }
    }

    /// `devicectl backup ROOT -o ARCHIVE --compression C [--engine E]`: returns the archive's path.
    @discardableResult
    func backup(
        to archive: String, compression: String = "none", engine: String? = nil, at now: Date = Clock.backup
    ) throws -> String {
        try Devicectl.succeed(
            ["backup", root, "-o", archive, "--compression", compression, "--no-progress"]
                + (engine.map { ["--engine", $0] } ?? []),
            at: now)
        return archive
    }

    /// `devicectl backup ROOT -o -`: the archive's bytes, as written to stdout.
    func backupToStdout(compression: String = "none", at now: Date = Clock.backup) throws -> Data {
        try Devicectl.succeed(
            ["backup", root, "-o", "-", "--compression", compression, "--no-progress"], at: now
        ).stdoutData
    }

    /// `devicectl restore ARCHIVE ROOT`: the archive restored onto `root` (fresh or not yet existing).
    static func restored(from archive: String, onto root: String, at now: Date = Clock.restore) throws -> Phone {
        try Devicectl.succeed(["restore", archive, root, "--no-progress"], at: now)
        return Phone(root: root)
    }

    /// `devicectl restore - ROOT` with `archive` on stdin.
    static func restored(fromStdin archive: Data, onto root: String, at now: Date = Clock.restore) throws -> Phone {
        try Devicectl.succeed(["restore", "-", root, "--no-progress"], at: now, input: archive)
        return Phone(root: root)
    }

    /// The user moves to a new phone: this phone is backed up at `backupAt` (into `directory`), a new phone
    /// is set up with `init` at `restoreAt` and the backup restored onto it, as `transfer` says.
    func migrate(
        to newRoot: String, via transfer: Transfer = .tar, engine: String? = nil, in directory: String,
        backupAt: Date = Clock.backup, restoreAt: Date = Clock.restore
    ) throws -> Phone {
        try Devicectl.succeed(["init", newRoot], at: restoreAt)
        guard transfer != .pipe else {
            try pipe(to: newRoot, backupAt: backupAt, restoreAt: restoreAt)
            return Phone(root: newRoot)
        }
        let name = URL(fileURLWithPath: root).lastPathComponent
        let archive = try backup(
            to: "\(directory)/\(name).\(transfer.fileExtension)", compression: transfer.compression, engine: engine,
            at: backupAt)
        return try Phone.restored(from: archive, onto: newRoot, at: restoreAt)
    }

    /// `devicectl backup OLD -o - | devicectl restore - NEW` through a shell pipeline (pipefail: either failing
    /// fails the step).
    private func pipe(to newRoot: String, backupAt: Date, restoreAt: Date) throws {
        let script = """
            set -o pipefail
            DEVICECTL_NOW="$3" "$0" backup "$1" -o - --no-progress |
                DEVICECTL_NOW="$4" "$0" restore - "$2" --no-progress
            """
        let result = try Shell.run(
            "/bin/bash",
            ["-c", script, DevicectlBinary.path, root, newRoot, Clock.iso(backupAt), Clock.iso(restoreAt)])
        try #require(result.status == 0, "backup -o - | restore -: \(result.stderr)")
    }
}
