// UserFacingErrorEndToEndTests: every command's failure names the user's file and the cause in their terms;
// no syscall name (`open(`, `openat2(`, `stat:`), no Swift type or enum case, no bare errno reaches stderr.
import Foundation
import TestSupport
import Testing

@Suite struct UserFacingErrorEndToEndTests {
    /// What must never appear in a message a user reads.
    static let internalNames = [
        "open(", "openat(", "openat2(", "read(", "statx(", "mkdir(", "mkdirat(", "renameat2(", "realpath(",
        ": stat:", ": open:", ": read:", "write(", "archive_write", "archive_read", "inflateInit", "Error(", "errno",
        "SystemError", "DeviceError", "RestoreError",
        "BackupError", "ArchiveReaderError", "Optional(", "Swift.",
    ]

    static func expectUserTerms(_ result: RunResult, naming path: String, because cause: String, status: Int32 = 1,
                                sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(path), "names \(path): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(cause), "says \(cause): \(result.stderr)", sourceLocation: sourceLocation)
        for name in internalNames {
            #expect(!result.stderr.contains(name), "leaks '\(name)': \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    /// A ROOT or ARCHIVE that does not exist, for every command that takes one.
    @Test(arguments: [
        ["status"], ["notifications"], ["events"], ["widget-refresh"], ["install", "--app", "com.example.a"],
        ["launch", "--app", "com.example.a"], ["tap", "--notification", "N"],
        ["widget", "add", "--app", "com.example.a"],
        ["defaults", "read", "com.example.a"], ["verify"], ["list"], ["restore"], ["backup", "-o", "/dev/null"],
        ["exclude", "add"], ["exclude", "remove"], ["exclude", "check"],
    ])
    func aMissingFileIsSaidToBeMissing(_ words: [String]) throws {
        try withTemporaryDirectory { dir in
            let missing = "\(dir)/absent"
            // The path goes where the command takes it: after the command's name (one or two words).
            let nameLength = ["widget", "defaults", "exclude"].contains(words[0]) ? 2 : 1
            var arguments = Array(words.prefix(nameLength)) + [missing] + Array(words.dropFirst(nameLength))
            if words == ["restore"] { arguments.append("\(dir)/new") }
            let result = try DevicectlBinary.run(arguments, environment: ["DEVICECTL_NOW": "2026-12-01T09:00:00Z"])
            Self.expectUserTerms(result, naming: missing, because: "no such file or directory")
        }
    }

    /// A directory given as an archive, and standard input that is a directory.
    @Test func aDirectoryIsNotAnArchive() throws {
        try withTemporaryDirectory { dir in
            for command in ["list", "verify"] {
                let result = try DevicectlBinary.run([command, dir])
                Self.expectUserTerms(result, naming: dir, because: "is a directory")
            }
            let piped = try Shell.run("sh", ["-c", "\"$0\" list - < \"$1\"", DevicectlBinary.path, dir])
            Self.expectUserTerms(piped, naming: "standard input", because: "is a directory")
        }
    }

    /// A backup of a ROOT that is missing or not a directory: the path and the cause, no call name.
    @Test func aBackupNamesTheFileItCouldNotRead() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/tree", withIntermediateDirectories: true)
            let result = try DevicectlBinary.run(["backup", "\(dir)/tree/none", "-o", "\(dir)/a.tar"])
            Self.expectUserTerms(result, naming: "\(dir)/tree/none", because: "no such file or directory")
            let file = try DevicectlBinary.run(["backup", "/etc/hostname", "-o", "\(dir)/b.tar"])
            Self.expectUserTerms(file, naming: "/etc/hostname", because: "not a directory")
        }
    }

    /// An archive that cannot be written (a file size limit, as a full disk): the archive and the cause, no
    /// libarchive call (`archive_write_data`) or `write(PATH)`, for every compression.
    @Test(arguments: ["tar", "tar.gz", "tar.zst", "tar.xz"])
    func anArchiveThatCannotBeWrittenIsNamed(_ suffix: String) throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/tree", withIntermediateDirectories: true)
            let random = try Shell.run("sh", ["-c", "head -c 2000000 /dev/urandom > \"$0/tree/data\"", dir])
            try #require(random.status == 0)
            let archive = "\(dir)/a.\(suffix)"
            let result = try Shell.run(
                "sh", ["-c", "ulimit -f 64; \"$0\" backup \"$1/tree\" -o \"$2\" --no-progress",
                DevicectlBinary.path, dir, archive])
            Self.expectUserTerms(result, naming: "cannot write the archive to \(archive)", because: ": file too large")
            #expect(!result.stderr.contains("archive_write"), "\(result.stderr)")
        }
    }

    /// A cause in the middle of a sentence is said in lower case, the way every other message says it (`strerror`'s
    /// own capital never shows): a pattern file, a MobileSync backup's directory, a password file, a new ROOT whose
    /// parent is missing; and a damaged header is named by the member before it, not by a libarchive call.
    @Test func causesAreSaidInTheSentence() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone", file = "\(dir)/file"
            try DevicectlBinary.succeed(["init", root])
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let patterns = try DevicectlBinary.run(["backup", root, "-o", "\(dir)/a.tar", "--exclude-from", "\(dir)/none"])
            Self.expectUserTerms(patterns, naming: "\(dir)/none", because: ": no such file or directory", status: 1)
            let backup = try DevicectlBinary.run(["backup", root, "--format", "mobilesync", "-o", file + "/b"])
            Self.expectUserTerms(backup, naming: file, because: ": not a directory")
            let password = try DevicectlBinary.run(
                ["backup", root, "--format", "mobilesync", "-o", "\(dir)/c", "--encrypt", "--password-file", dir])
            Self.expectUserTerms(password, naming: dir, because: ": is a directory", status: 64)
            try DevicectlBinary.succeed(["backup", root, "-o", "\(dir)/d.tar", "-q"])
            let orphan = try DevicectlBinary.run(["restore", "\(dir)/d.tar", "\(dir)/none/deeper/root"])
            Self.expectUserTerms(orphan, naming: "the directory \(dir)/none/deeper does not exist", because: "nothing was changed")
            // The header of the archive's third member, its checksum zeroed.
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/d.tar")))
            let headers = stride(from: 0, to: bytes.count - 512, by: 512).filter {
                Array(bytes[($0 + 257)..<($0 + 262)]) == Array("ustar".utf8) && bytes[$0 + 156] != UInt8(ascii: "x")
            }
            try #require(headers.count > 3)
            for index in 148..<156 { bytes[headers[3] + index] = UInt8(ascii: "0") }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/bad.tar"))
            for command in [["restore", "\(dir)/bad.tar", "\(dir)/new"], ["verify", "\(dir)/bad.tar"], ["list", "\(dir)/bad.tar"]] {
                let damaged = try DevicectlBinary.run(command)
                Self.expectUserTerms(damaged, naming: "bad.tar", because: "after member '")
            }
            for result in [patterns, backup, password, orphan] {
                for capital in ["No such file", "Not a directory", "Is a directory"] {
                    #expect(!result.stderr.contains(capital), "\(result.stderr)")
                }
            }
        }
    }

    /// A hostile member name's escape sequences never reach the terminal: a message shows them as `\u{1B}`.
    @Test func aHostileNameCannotDriveTheTerminal() throws {
        try withTemporaryDirectory { dir in
            let archive = "\(dir)/e.tar"
            let made = try Shell.run("python3", ["-c", """
                import io, sys, tarfile
                t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
                i = tarfile.TarInfo('../\\x1b[31mred\\x1b[0m'); i.size = 1; t.addfile(i, io.BytesIO(b'x')); t.close()
                """, archive])
            try #require(made.status == 0, "\(made.stderr)")
            for command in [["restore", archive, "\(dir)/new"], ["verify", archive]] {
                let result = try DevicectlBinary.run(command)
                #expect(result.status == 1, "\(result.stderr)")
                #expect(!result.stderr.contains("\u{1B}"), "\(result.stderr)")
                #expect(result.stderr.contains("\\u{1B}[31mred"), "\(result.stderr)")
            }
        }
    }

    /// Under --json the error object carries the same words.
    @Test func theJSONErrorSaysTheSame() throws {
        try withTemporaryDirectory { dir in
            let result = try DevicectlBinary.run(["status", "\(dir)/absent", "--json"])
            Self.expectUserTerms(result, naming: "\(dir)/absent", because: "no such file or directory")
            #expect(result.stderr.contains(#""message":"\#(dir)/absent: no such file or directory""#))
        }
    }
}
