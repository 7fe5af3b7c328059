// PatternFile: `--exclude-from FILE`: exclusion patterns one a line, as GNU tar's --exclude-from reads them.
import BackupKit
import DeviceKit
import Glibc
import SystemKit

/// A file of `--exclude` patterns: one a line, `#` at the start of a line makes a comment, blank lines are
/// ignored; `-` reads standard input. Patterns use the `--exclude` language exactly.
enum PatternFile {
    /// The largest file read: far more patterns than any backup needs, and bounded memory for any input.
    static let limit = 1 << 20

    /// A pattern file that cannot be read (exit 1; the message names the file and the cause).
    struct ReadError: Error, CustomStringConvertible {
        let path: String
        let cause: String
        var description: String { "cannot read --exclude-from \(path): \(cause)" }
    }

    /// The patterns in `path`, in file order. An invalid pattern is a usage error naming the file and the line.
    static func patterns(from path: String, command: String) throws -> [ExclusionPattern] {
        let bytes = try read(path)
        var patterns: [ExclusionPattern] = []
        let shown = path == "-" ? "standard input" : path
        for (index, rawLine) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw UsageError("\(shown) line \(index + 1) is not UTF-8 text", command: command)
            }
            if text.isEmpty || text.hasPrefix("#") || text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            do {
                patterns.append(try ExclusionPattern(text))
            } catch {
                throw UsageError("invalid pattern '\(DeviceValueError.display(text))' in \(shown) line \(index + 1): \(error)", command: command)
            }
        }
        return patterns
    }

    /// The file's bytes (at most `limit`); a directory, a missing file or one too large is a `ReadError`.
    private static func read(_ path: String) throws -> [UInt8] {
        let file: FileDescriptor
        if path == "-" {
            file = FileDescriptor(rawValue: dup(STDIN_FILENO), path: "standard input")
        } else {
            do {
                file = try FileDescriptor.open(path, flags: O_RDONLY)
            } catch {
                throw ReadError(path: path, cause: error.phrase)
            }
        }
        // `file` closes (errors ignored) when it goes out of scope.
        if let status = try? file.status(), status.kind == .directory {
            throw ReadError(path: path, cause: "it is a directory")
        }
        do {
            return try file.readAll(limit: limit)
        } catch where error.code == EFBIG {
            throw ReadError(path: path, cause: "larger than \(limit / (1 << 20)) MiB; a pattern file is a short list")
        } catch {
            throw ReadError(path: path, cause: error.phrase)
        }
    }
}
