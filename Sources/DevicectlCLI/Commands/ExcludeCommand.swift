// ExcludeCommand: `devicectl exclude add|remove|check`, like `tmutil addexclusion|removeexclusion|isexcluded`.
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

    /// A user-facing message: missing paths and symlinks said plainly, the rest as the error says.
    static func message(for error: Error, path: String) -> String {
        if let error = error as? SystemError {
            switch error.code {
            case ENOENT: return "\(path): no such file or directory"
            case EPERM where (try? FileStatus.of(path).kind) == .symlink:
                return "\(path): is a symbolic link; Linux allows no user extended attributes on symlinks"
            default: break
            }
        }
        return "\(error)"
    }

    enum Add: Command {
        static let spec = CommandSpec(
            name: "exclude add", summary: "Mark paths excluded from backup (Apple's exclusion xattr).",
            positionals: [paths],
            discussion: """
                Sets user.com.apple.metadata:com_apple_backup_excludeItem to the bytes Apple writes (a binary
                plist holding the string com.apple.backupd). Every path is tried; exit 1 if any failed.
                Example: devicectl exclude add /tmp/phone/Containers/Shared/AppGroup/*/big.cache
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            each(arguments, context, done: "excluded from backup") { path in
                _ = try FileStatus.of(path)
                try BackupExclusion.add(path)
            }
        }
    }

    enum Remove: Command {
        static let spec = CommandSpec(
            name: "exclude remove", summary: "Clear the exclusion xattr from paths.",
            positionals: [paths],
            discussion: """
                Clears Apple's flag and the legacy iOS (com.apple.MobileBackup) and xdg (user.xdg.robots.backup)
                flags. Every path is tried; exit 1 if any failed.
                Example: devicectl exclude remove /tmp/phone/Documents/keep.db
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            each(arguments, context, done: "no longer excluded from backup") { path in
                try BackupExclusion.remove(path)
            }
        }
    }
}
