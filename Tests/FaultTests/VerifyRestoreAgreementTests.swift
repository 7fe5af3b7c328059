// VerifyRestoreAgreementTests: verify says "intact" exactly when restore would restore. Regression tests for
// fuzzer findings where they disagreed: a hard link given a pax size (verify passed, restore refused), a file
// whose pax size outgrows its data (verify hashed zeros for ever), a sparse manifest, an extended attribute
// Linux cannot hold (restore failed in fsetxattr with E2BIG; verify now names it, and restore refuses it first).
// Issue 13, finding 9: damaged gzip trailers, data after a compressed stream, a cut end-of-archive mark, an
// archive compressed twice and NULs in names are refused by restore, verify and list with the same reason.
import BackupKit
import DeviceKit
import Foundation
import TarKit
import TestSupport
import Testing

@Suite struct VerifyRestoreAgreementTests {
    struct Edit: CustomStringConvertible, Sendable {
        let description: String
        let member: String
        let records: [(String, String)]
    }

    static let edits: [Edit] = [
        Edit(
            description: "a hard link with a sparse size", member: "docs/block-again",
            records: [("GNU.sparse.map", "180435,4543"), ("GNU.sparse.size", "1000"), ("GNU.sparse.numblocks", "1")]),
        Edit(
            description: "a file whose size outgrows its data", member: "a.txt",
            records: [("GNU.sparse.realsize", "99999999999999999999999")]),
        Edit(
            description: "a file with a few bytes more than its data", member: "docs/block",
            records: [("GNU.sparse.realsize", "4096")]),
        Edit(
            description: "a sparse manifest", member: ".devicectl-manifest.jsonl",
            records: [("GNU.sparse.map", "0,10"), ("GNU.sparse.size", "10"), ("GNU.sparse.numblocks", "1")]),
    ]

    /// A damaged form of a good backup (its tar stream), and the words restore, verify and list all say.
    struct Damage: CustomStringConvertible, Sendable {
        let description: String
        let message: String
        /// The expansion limit for all three (restore's `maxBytes`), when the case is about it.
        var limit: UInt64? = nil
        let build: @Sendable (_ tar: [UInt8]) throws -> [UInt8]
    }

    static func compressed(_ tar: [UInt8], _ tool: String, _ arguments: [String] = ["-c"]) throws -> [UInt8] {
        let result = try Shell.run(tool, arguments, input: Data(tar))
        guard result.status == 0 else { throw FaultError("\(tool): \(result.stderr)") }
        return [UInt8](result.stdoutData)
    }

    static let damages: [Damage] = [
        Damage(
            description: "more file data than the limit",
            message: "member 'docs/big.bin': the archive's files add up to", limit: 60_000
        ) { tar in tar },
        Damage(description: "a gzip CRC-32 damaged", message: "incorrect data check") { tar in
            var gzip = try compressed(tar, "gzip", ["-c", "-n"])
            gzip[gzip.count - 8] ^= 0x5A  // the trailer: CRC-32, then the length, little-endian
            return gzip
        },
        Damage(description: "a gzip length damaged", message: "incorrect length check") { tar in
            var gzip = try compressed(tar, "gzip", ["-c", "-n"])
            gzip[gzip.count - 1] ^= 0x01
            return gzip
        },
        Damage(description: "data after the gzip stream", message: "data after the end of the gzip stream") { tar in
            try compressed(tar, "gzip", ["-c", "-n"]) + Array("appended".utf8)
        },
        Damage(description: "zeros after the gzip stream", message: "data after the end of the gzip stream") { tar in
            try compressed(tar, "gzip", ["-c", "-n"]) + [UInt8](repeating: 0, count: 512)
        },
        Damage(description: "a gzip stream cut inside its trailer", message: "the gzip stream is truncated") { tar in
            Array(try compressed(tar, "gzip", ["-c", "-n"]).dropLast(3))
        },
        Damage(description: "data after the bzip2 stream", message: "data after the end of the bzip2 stream") { tar in
            try compressed(tar, "bzip2") + Array("appended".utf8)
        },
        Damage(description: "an archive compressed twice", message: "compressed twice (xz, then gzip)") { tar in
            try compressed(try compressed(tar, "gzip", ["-c", "-n"]), "xz")
        },
        Damage(description: "no end-of-archive mark", message: "no end-of-archive mark") { tar in
            Array(tar[..<TarLayout(tar).trailer])
        },
        Damage(description: "one zero block of the end-of-archive mark", message: "end-of-archive mark is cut short") {
            tar in Array(tar[..<(TarLayout(tar).trailer + 512)])
        },
        Damage(description: "a NUL inside a GNU long name", message: "NUL byte inside the GNU long name") { tar in
            let name = Array("docs/shown".utf8) + [0] + Array("/hidden-by-libarchive".utf8)
            let longName = TarLayout.header(
                name: Array("././@LongLink".utf8), type: UInt8(ascii: "L"), size: name.count)
            let member = TarLayout.header(name: Array("docs/placeholder".utf8), type: UInt8(ascii: "0"), size: 0)
            return longName + TarLayout.padding(name) + member + tar
        },
        Damage(description: "a NUL inside a ustar name", message: "NUL byte inside the header's name") { tar in
            let name = Array("docs/shown".utf8) + [0] + Array("hidden".utf8)
            return TarLayout.header(name: name, type: UInt8(ascii: "0"), size: 0) + tar
        },
        Damage(description: "a NUL inside a pax path", message: "NUL byte inside the pax 'path' value") { tar in
            var bytes = tar
            let entry = try #require(TarLayout(bytes).entries.first { $0.name == Array("a.txt".utf8) })
            TarLayout.editPax(&bytes, entry) { $0.records.append(("path", Array("a.txt".utf8) + [0] + [0x78])) }
            return bytes
        },
    ]

    /// Restore refuses each damaged backup and changes nothing, verify reports it, list fails on it, and all
    /// three name the same cause.
    @Test(arguments: damages)
    func restoreVerifyAndListRefuseTheSameDamage(_ damage: Damage) throws {
        try withTemporaryDirectory { dir in
            let good = try FuzzSeeds.mixedBackup(in: dir)
            let archive = dir + "/damaged"
            try Data(try damage.build(try FuzzSeeds.read(good))).write(to: URL(fileURLWithPath: archive))

            let limit = damage.limit.map(ExpansionLimit.init(dataBytes:)) ?? .reading
            let report = try ArchiveVerification.verify(archive: archive, limit: limit)
            #expect(!report.isValid, "verify passed \(damage)")
            #expect(report.problems.contains { $0.contains(damage.message) }, "verify: \(report.problems)")
            let listed = #expect(throws: (any Error).self, "list accepted \(damage)") {
                try ArchiveListing.list(archive: archive, limit: limit) { _ in }
            }
            #expect(listed.map { "\($0)".contains(damage.message) } == true, "list: \(String(describing: listed))")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            options.maxBytes = damage.limit
            let refused = #expect(throws: RestoreError.self, "restore accepted \(damage)") {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect(refused.map { "\($0)".contains(damage.message) } == true, "restore: \(String(describing: refused))")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    /// A plist restore parses after extracting (the home screen, container metadata) made unreadable in the tree
    /// before the backup, so the manifest matches it; the words restore and verify both say.
    struct BadPlist: CustomStringConvertible, Sendable {
        let description: String
        let message: String
        let path: String
        let make: @Sendable (_ file: String) throws -> Void
    }

    static func binaryPlist(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    static let metadata =
        "Containers/Shared/AppGroup/3AC162B4-0000-4000-8000-000000000001/"
        + ".com.apple.mobile_container_manager.metadata.plist"

    static let badPlists: [BadPlist] = [
        BadPlist(
            description: "a home screen that is not a plist", message: "malformed property list (not a property list)",
            path: "Library/SpringBoard/IconState.plist"
        ) { try Data("not a plist".utf8).write(to: URL(fileURLWithPath: $0)) },
        BadPlist(
            description: "a home screen without its widgets", message: "no 'widgets' array",
            path: "Library/SpringBoard/IconState.plist"
        ) { try binaryPlist(["icons": [1, 2]]).write(to: URL(fileURLWithPath: $0)) },
        BadPlist(
            description: "a home screen that is an array", message: "the top level is not a dictionary",
            path: "Library/SpringBoard/IconState.plist"
        ) { try binaryPlist([1, 2]).write(to: URL(fileURLWithPath: $0)) },
        BadPlist(
            description: "a home screen of 2 MiB", message: "more than one may hold",
            path: "Library/SpringBoard/IconState.plist"
        ) { try Data(count: 2 << 20).write(to: URL(fileURLWithPath: $0)) },
        BadPlist(
            description: "a home screen that is a symlink", message: "a device plist that is a symlink",
            path: "Library/SpringBoard/IconState.plist"
        ) { _ = symlink("elsewhere.plist", $0) },
        BadPlist(
            description: "container metadata without an identifier", message: "no MCMMetadataIdentifier string",
            path: metadata
        ) { try binaryPlist(["MCMMetadataIdentifier": 7]).write(to: URL(fileURLWithPath: $0)) },
        BadPlist(
            description: "container metadata that is empty", message: "malformed property list (the file is empty)",
            path: metadata
        ) { try Data().write(to: URL(fileURLWithPath: $0)) },
    ]

    /// Restore would fail reading the plist back after extraction (or read it whole into memory): it refuses the
    /// member while extracting it, and verify names it, with the same words.
    @Test(arguments: badPlists)
    func restoreAndVerifyRefuseTheSameDevicePlist(_ bad: BadPlist) throws {
        try withTemporaryDirectory { dir in
            try FuzzSeeds.makeMixedTree(dir + "/src")
            let file = dir + "/src/" + bad.path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try bad.make(file)
            let archive = dir + "/backup.tar"
            _ = try BackupEngine.backup(
                BackupRequest(
                    root: dir + "/src", output: .file(archive), created: FuzzSeeds.created, tool: "devicectl test"),
                warning: { _ in })
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(
                report.problems.contains { $0.contains("member '\(bad.path)'") && $0.contains(bad.message) },
                "verify: \(report.problems)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            let refused = #expect(throws: RestoreError.self, "restore accepted \(bad)") {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect(
                refused.map { "\($0)".contains("member '\(bad.path)'") && "\($0)".contains(bad.message) } == true,
                "restore: \(String(describing: refused))")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    /// The controls: the same backup intact, gzip'd whole or as two concatenated gzip members (gzip -d accepts
    /// both), is accepted by all three.
    @Test(arguments: ["plain", "gzip", "two gzip members"])
    func restoreVerifyAndListAcceptTheIntactBackup(_ form: String) throws {
        try withTemporaryDirectory { dir in
            let good = try FuzzSeeds.mixedBackup(in: dir)
            let tar = try FuzzSeeds.read(good)
            let half = tar.count / 2
            let bytes =
                switch form {
                case "gzip": try Self.compressed(tar, "gzip", ["-c", "-n"])
                case "two gzip members":
                    try Self.compressed(Array(tar[..<half]), "gzip", ["-c", "-n"])
                        + Self.compressed(Array(tar[half...]), "gzip", ["-c", "-n"])
                default: tar
                }
            let archive = dir + "/intact"
            try Data(bytes).write(to: URL(fileURLWithPath: archive))
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(report.isValid, "\(report.problems)")
            let summary = try ArchiveListing.list(archive: archive) { _ in }
            #expect(summary.manifestProblem == nil)
            #expect(summary.filters == (form == "plain" ? [] : ["gzip"]))
            let root = dir + "/phone"
            try Device.initialize(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            #expect(try ArchiveRestore.restore(archive: archive, root: root, options: options).verified)
        }
    }

    @Test(arguments: [
        ("SCHILY.xattr.user.big", String(repeating: "v", count: 70_000), "more than Linux allows (65536)"),
        ("SCHILY.xattr.user." + String(repeating: "n", count: 300), "x", "longer than Linux allows (255 bytes)"),
    ])
    func anExtendedAttributeLinuxCannotHoldIsNamedByBoth(_ key: String, _ value: String, _ message: String) throws {
        try withTemporaryDirectory { dir in
            let archive = try FuzzSeeds.mixedBackup(in: dir)
            var bytes = try FuzzSeeds.read(archive)
            let entry = try #require(TarLayout(bytes).entries.first { String(decoding: $0.name, as: UTF8.self) == "a.txt" })
            TarLayout.editPax(&bytes, entry) { $0.records.append((key, Array(value.utf8))) }
            try Data(bytes).write(to: URL(fileURLWithPath: archive))
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(report.problems.contains { $0.contains("member 'a.txt'") && $0.contains(message) }, "\(report.problems)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            let error = #expect(throws: RestoreError.self) {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect("\(error!)".contains(message), "\(error!)")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    @Test(arguments: edits)
    func verifyAndRestoreAgree(_ edit: Edit) throws {
        try withTemporaryDirectory { dir in
            let archive = try FuzzSeeds.mixedBackup(in: dir)
            var bytes = try FuzzSeeds.read(archive)
            let entry = try #require(
                TarLayout(bytes).entries.first { String(decoding: $0.name, as: UTF8.self) == edit.member })
            TarLayout.editPax(&bytes, entry) { $0.records += edit.records.map { ($0.0, Array($0.1.utf8)) } }
            try Data(bytes).write(to: URL(fileURLWithPath: archive))

            let start = Date()
            let report = try? ArchiveVerification.verify(archive: archive)
            #expect(report?.isValid != true, "verify passed \(edit)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            #expect(throws: RestoreError.self, "restore accepted \(edit)") {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect(try TreeSnapshot.take(root) == before)
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }
}
