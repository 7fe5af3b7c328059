// BackupCommand: `devicectl backup`.
import DeviceKit
import Foundation

enum BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup", summary: "Archive a tree to tar, skipping everything excluded from backup.",
        positionals: [PositionalSpec("ROOT", help: "The device root or any directory.")],
        options: [
            OptionSpec(["--output", "-o"], .value("ARCHIVE"), help: "The archive to write, or - for stdout (required)."),
            OptionSpec(["--compression"], .value("none|gzip|zstd|xz"), help: "Compression (default: from the extension)."),
            OptionSpec(["--level"], .value("N"), help: "Compression level."),
            OptionSpec(["--exclude"], .value("GLOB"), repeatable: true, help: "Skip paths (relative to ROOT) matching GLOB."),
            OptionSpec(["--dry-run"], help: "Write nothing; list what would be skipped and why."),
            jsonOption,
        ] + progressOptions
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
