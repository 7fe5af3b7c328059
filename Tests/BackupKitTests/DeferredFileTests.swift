// DeferredFileTests: a MobileSync backup reads its large files after the walk (`ArchivingVisitor.readDeferred`) and
// stores each whole, where it belongs, plain and encrypted; a deferred file that changes still fails the backup.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@testable import BackupKit

@Suite struct DeferredFileTests {
    static let app = "com.test.large"
    /// More large files than are deferred: the last two are read where the walk meets them.
    static let largeCount = ArchivingVisitor.maximumDeferred + 2

    /// `size` bytes that differ from file to file (`seed`) and from block to block.
    static func bytes(_ size: Int, seed: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13 &+ seed &* 131) }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The large files' names, in the order the walk meets them (names sorted bytewise).
    static let largeNames = (0..<largeCount).map { String(format: "large-%02d.bin", $0) }

    /// A device with one app whose Documents hold `largeCount` files from 1 MiB up, small files between them, and a
    /// container no metadata names (not in any domain) with a large file of its own; returns the files' contents by
    /// path relative to the data container.
    static func makeDevice(_ root: String) throws -> [String: [UInt8]] {
        let phone = try TestPhone(root, apps: [app])
        let documents = try phone.device.app(app).dataContainer.path + "/Documents"
        var contents: [String: [UInt8]] = [:]
        for (index, name) in largeNames.enumerated() {
            let bytes = bytes(Int(BackupEngine.mobileSyncDeferFrom) + index * 4_099, seed: index)
            try write(bytes, to: documents + "/" + name)
            contents["Documents/" + name] = bytes
            let small = bytes.prefix(100 + index)
            try write(Array(small), to: documents + "/" + name + ".small")
            contents["Documents/" + name + ".small"] = Array(small)
        }
        let stray = root + "/Containers/Data/Application/00000000-0000-4000-8000-000000000000/Documents"
        try FileManager.default.createDirectory(atPath: stray, withIntermediateDirectories: true)
        try write(bytes(Int(BackupEngine.mobileSyncDeferFrom), seed: 99), to: stray + "/stray.bin")
        return contents
    }

    static func request(_ root: String, _ backup: String, encrypted: Bool) -> BackupRequest {
        var request = BackupRequest(
            root: root, output: .file(backup), created: TestPhone.start, tool: "test", format: .mobileSync)
        request.engine = .computer
        if encrypted {
            request.password = BackupPassword(bytes: Array("deferred".utf8), sha256Iterations: 1, sha1Iterations: 1)
        }
        return request
    }

    @Test(arguments: [false, true])
    func largeFilesAreReadAfterTheWalkAndStoredWhole(encrypted: Bool) throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup", restored = scratch + "/restored"
            let contents = try Self.makeDevice(root)
            var read: [String] = []
            var warnings: [String] = []
            _ = try BackupEngine.backup(
                Self.request(root, backup, encrypted: encrypted), progress: nil, warning: { warnings.append($0) },
                afterRead: { read.append(($0 as NSString).lastPathComponent) })

            // Read order: every file the walk reads, then the deferred ones in walk order: the stray file first (its
            // container sorts first; the reader does not know the domains), then large files up to the limit. The
            // rest were read where the walk met them, each before its small neighbour.
            let deferredLarge = ArchivingVisitor.maximumDeferred - 1
            let deferred = ["stray.bin"] + Self.largeNames.prefix(deferredLarge)
            #expect(Array(read.suffix(deferred.count)) == deferred)
            let inline = Array(read.dropLast(deferred.count))
            for name in Self.largeNames.dropFirst(deferredLarge) {
                let index = try #require(inline.firstIndex(of: name), "\(name) read during the walk")
                #expect(inline.count > index + 1 && inline[index + 1] == name + ".small")
            }
            #expect(warnings.contains { $0.contains("00000000-0000-4000-8000-000000000000") })

            var options = RestoreOptions()
            options.syncsBeforeMove = false
            if encrypted { options.password = { Array("deferred".utf8) } }
            _ = try ArchiveRestore.restore(archive: backup, root: restored, options: options)
            let data = try Device.open(restored).app(Self.app).dataContainer.path
            for (path, bytes) in contents {
                let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: data + "/" + path)))
                let same = stored == bytes  // compared apart: a failure names the file, not a megabyte of bytes
                #expect(same, "\(path): \(stored.count) bytes restored for \(bytes.count), not the same")
            }
        }
    }

    @Test func aDeferredFileThatChangesFailsTheBackup() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            _ = try Self.makeDevice(root)
            let documents = try Device.open(root).app(Self.app).dataContainer.path + "/Documents"
            let changed = documents + "/" + Self.largeNames[3]
            let suffix = "/Documents/" + Self.largeNames[3]
            var failure: BackupError?
            do {
                _ = try BackupEngine.backup(
                    Self.request(root, backup, encrypted: true), progress: nil, warning: { _ in },
                    afterRead: { path in
                        // Appended to after it was read: deferred, it is read after every small file.
                        if path.hasSuffix(suffix) { try? Data("x".utf8).append(to: URL(fileURLWithPath: changed)) }
                    })
            } catch let error as BackupError {
                failure = error
            }
            guard case .changed(let path, _) = failure else {
                Issue.record("expected the deferred file's change to fail the backup, got \(String(describing: failure))")
                return
            }
            #expect(path.hasSuffix(suffix))
            #expect(!FileManager.default.fileExists(atPath: backup), "no backup left")
        }
    }
}

extension Data {
    /// Appends to the file at `url` (test helper).
    fileprivate func append(to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
    }
}
