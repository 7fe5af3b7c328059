// UserFacingErrorEndToEndTests: every command's failure names the user's file and the cause in their terms;
// no syscall name (`open(`, `openat2(`, `stat:`), no Swift type or enum case, no bare errno reaches stderr.
import Foundation
import TestSupport
import Testing

@Suite struct UserFacingErrorEndToEndTests {
    /// What must never appear in a message a user reads.
    static let internalNames = [
        "open(", "openat(", "openat2(", "read(", "statx(", "mkdir(", "mkdirat(", "renameat2(", "realpath(",
        ": stat:", ": open:", ": read:", "write(", "archive_write", "inflateInit", "Error(", "errno",
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

    /// Under --json the error object carries the same words.
    @Test func theJSONErrorSaysTheSame() throws {
        try withTemporaryDirectory { dir in
            let result = try DevicectlBinary.run(["status", "\(dir)/absent", "--json"])
            Self.expectUserTerms(result, naming: "\(dir)/absent", because: "no such file or directory")
            #expect(result.stderr.contains(#""message":"\#(dir)/absent: no such file or directory""#))
        }
    }
}
