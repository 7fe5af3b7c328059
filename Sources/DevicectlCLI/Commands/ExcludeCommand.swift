// ExcludeCommand: `devicectl exclude add|remove|check`, like `tmutil addexclusion|removeexclusion|isexcluded`.
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit

enum ExcludeCommand {
    static let paths = PositionalSpec("PATH", help: "Files or directories.", variadic: true)

    /// Applies `change` to every path in order; a path that fails is reported (naming it) and the
    /// others still run. Exit status 1 when any failed.
    static func each(
        _ arguments: ParsedArguments, _ context: CommandContext, done: String,
        _ change: (String) throws -> Void
    ) -> Int32 {
        var failed = false
        for path in arguments.positionals {
            do {
                if path.isEmpty { throw SystemError("stat", path: "''", code: ENOENT) }
                try change(path)
                context.console.out("\(path): \(done)")
            } catch {
                failed = true
                context.console.err("devicectl: \(message(for: error, path: path))")
            }
        }
        return failed ? 1 : 0
    }

    /// The file the user named by `path`, opened by its bytes (a name need not be UTF-8) without following a
    /// final symlink (`FileDescriptor.locateOnly`); `path` (tar-escaped when not UTF-8) names it in errors. Inside a
    /// device root it is opened as `openInDevice` opens it.
    static func open(_ path: String, _ context: CommandContext) throws -> FileDescriptor {
        if let contained = try openInDevice(path, context) { return contained }
        let fd = try (context.bytes(of: path) + [0]).withUnsafeBufferPointer { buffer throws(SystemError) in
            try SystemError.check("open", path: path) {
                buffer.withMemoryRebound(to: CChar.self) {
                    Glibc.open($0.baseAddress!, FileDescriptor.locateOnly | O_CLOEXEC)
                }
            }
        }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// `path` opened beneath its device root (`deviceRoot(around:)`) by the kernel (`ContainedRoot`): a symlink on
    /// the way, which a device's files may hold and which may lead out of it, is refused (ELOOP), never followed.
    /// Nil when `path` is in no device.
    static func openInDevice(_ path: String, _ context: CommandContext) throws -> FileDescriptor? {
        guard let (root, relative) = deviceRoot(around: context.bytes(of: path)) else { return nil }
        return try ContainedRoot(opening: try RootPath.resolve(root)).open(
            bytes: relative, flags: FileDescriptor.locateOnly)
    }

    /// The outermost device root (a directory holding `DeviceLocal`, whatever it is) among the directories `path`
    /// names above its last component, taken lexically (from the working directory for a relative path; `.` and
    /// `..` applied to the names), and the rest of the path below it; nil when none is a device root. Outermost: a
    /// symlink planted inside a device can lead to another device, never the other way round.
    static func deviceRoot(around path: [UInt8]) -> (root: String, relative: [UInt8])? {
        var components: [[UInt8]] = []
        if path.first != UInt8(ascii: "/") {
            components = FileManager.default.currentDirectoryPath.utf8.split(separator: UInt8(ascii: "/")).map(Array.init)
        }
        for part in path.split(separator: UInt8(ascii: "/")) {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) {
                _ = components.popLast()
                continue
            }
            components.append(Array(part))
        }
        guard !components.isEmpty else { return nil }
        for depth in 1..<components.count {
            let directory = components[..<depth]
            guard directory.allSatisfy({ String(validating: $0, as: UTF8.self) != nil }) else { return nil }
            let root = "/" + directory.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
            // A device whose DeviceLocal was replaced (by a symlink out of it, say) is still one here: its other
            // files are as hostile.
            var status = stat()
            if Device.isDevice(at: root) || lstat(root + "/" + DeviceLayout.deviceLocal, &status) == 0 {
                return (root, Array(components[depth...].joined(separator: [UInt8(ascii: "/")])))
            }
        }
        return nil
    }

    /// `exclude check`'s verdict on `path`, examined by its bytes; shown as `list` shows names.
    static func check(
        _ path: String, _ context: CommandContext, engine: AppleBackupEngine = .default
    ) throws -> ExclusionVerdict {
        // Inside a device, a path through a symlink is refused as `add` refuses it, before anything is read.
        _ = try openInDevice(path, context)
        return try ExclusionCheck.check(bytes: context.bytes(of: path), display: ArchiveFormat.name(bytes:), engine: engine)
    }

    /// A user-facing message: missing paths and symlinks said plainly, the rest as the error says.
    static func message(for error: Error, path: String) -> String {
        if let error = error as? SystemError {
            switch error.code {
            case ENOENT: return "\(path): no such file or directory"
            case EILSEQ:
                return "\(path): a directory above the file has a name that is not UTF-8; "
                    + "run the command from inside that directory (cd there) and name the file from it"
            case EPERM where (try? FileStatus.of(path).kind) == .symlink:
                return "\(path): is a symbolic link; Linux allows no user extended attributes on symlinks"
            case ELOOP, EXDEV:
                guard deviceRoot(around: Array(path.utf8)) != nil else { break }
                return "\(path): a directory on its way is a symbolic link inside the device root; devicectl follows "
                    + "no symlink in a device (one can lead out of it): name the file by its own path"
            default: break
            }
        }
        return UserMessage.text(for: error)
    }

    enum Add: Command {
        static let spec = CommandSpec(
            name: "exclude add", summary: "Mark paths excluded from backup (Apple's exclusion xattr).",
            positionals: [paths],
            options: [
                OptionSpec(["--cloud-only"], help: "Exclude from iCloud backups only (engine icloud)."),
                OptionSpec(
                    ["--unencrypted-only"], help: "Exclude from unencrypted computer backups only (engine computer)."),
            ],
            discussion: """
                Sets user.com.apple.metadata:com_apple_backup_excludeItem to the bytes Apple writes (a binary
                plist holding the string com.apple.backupd): excluded from every engine (iCloud, computer,
                Quick Start), except in ROOT/Library/Preferences, which the backup agent backs up anyway.
                --cloud-only sets com_apple_cloudBackup_excludeItem instead, --unencrypted-only
                com_apple_unencryptedBackup_excludeItem (iOS 12+ private keys; same bytes, presence counts).
                Every path is tried; exit 1 if any failed.
                Example: devicectl exclude add /tmp/phone/Containers/Shared/AppGroup/*/big.cache
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            let cloud = arguments.flag("--cloud-only")
            let unencrypted = arguments.flag("--unencrypted-only")
            if cloud && unencrypted {
                throw UsageError(
                    "--cloud-only and --unencrypted-only are different flags; set them with two commands",
                    command: spec.name)
            }
            let scope: BackupExclusionScope = cloud ? .cloudOnly : unencrypted ? .unencryptedOnly : .all
            return each(arguments, context, done: scope.outcome) { path in
                try BackupExclusion.add(try ExcludeCommand.open(path, context), scope: scope)
            }
        }
    }

    enum Remove: Command {
        static let spec = CommandSpec(
            name: "exclude remove", summary: "Clear the exclusion xattr from paths.",
            positionals: [paths],
            discussion: """
                Clears Apple's flags (general, cloud-only, unencrypted-only) and the legacy iOS
                (com.apple.MobileBackup) and xdg (user.xdg.robots.backup) flags. Every path is tried; exit 1 if any
                failed.
                Example: devicectl exclude remove /tmp/phone/Documents/keep.db
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            var failed = false
            for path in arguments.positionals {
                do {
                    if path.isEmpty { throw SystemError("stat", path: "''", code: ENOENT) }
                    let cleared = try BackupExclusion.remove(try ExcludeCommand.open(path, context))
                    let verdict = try ExcludeCommand.check(path, context)
                    context.console.out(outcome(path, cleared: !cleared.isEmpty, still: verdict))
                } catch {
                    failed = true
                    context.console.err("devicectl: \(message(for: error, path: path))")
                }
            }
            return failed ? 1 : 0
        }

        /// What `remove` did and whether a backup still skips `path` (and why), in the backup engine's terms:
        /// `PATH: no longer excluded from backup`, `PATH: exclusion flag cleared; still excluded from backup
        /// (ios-caches: ...)`, `PATH: had no exclusion flag; ...`.
        static func outcome(_ path: String, cleared: Bool, still verdict: ExclusionVerdict) -> String {
            let done = cleared ? "exclusion flag cleared" : "had no exclusion flag to clear"
            guard verdict.excluded else {
                return cleared
                    ? "\(path): no longer excluded from backup" : "\(path): \(done); not excluded from backup"
            }
            let reasons = verdict.reasons.map { reason -> String in
                if reason == .excludedAncestor, let ancestor = verdict.ancestor {
                    let why = ancestor.reasons.map(\.rawValue).joined(separator: ", ")
                    return "excluded-ancestor: \(ancestor.path) [\(why)]"
                }
                return stillExplained(reason)
            }
            return "\(path): \(done); still excluded from backup (\(reasons.joined(separator: "; ")))"
        }

        /// A reason `remove` cannot clear, with what would.
        static func stillExplained(_ reason: ExclusionReason) -> String {
            switch reason {
            case .nodump: "nodump: the file's nodump attribute is set; clear it with chattr -d"
            case .iosCaches: "ios-caches: iOS never backs up an app's Library/Caches"
            case .iosTmp: "ios-tmp: iOS never backs up an app's tmp"
            case .iosSystemData: "ios-systemdata: iOS never backs up a container's SystemData"
            case .iosAppBundle: "ios-app-bundle: app bundles are reinstalled, never backed up"
            case .deviceLocal: "device-local: the device's own state is never backed up"
            case .cachedirTag: "cachedir-tag: a CACHEDIR.TAG marks the directory as a cache"
            default: reason.rawValue
            }
        }
    }
}
