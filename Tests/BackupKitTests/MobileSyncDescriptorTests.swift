// MobileSyncDescriptorTests: the MobileSync sink and source close what they opened when they fail (a file that
// ends short, a content file that is no regular file, a Manifest.db that is no database).
import DeviceKit
import Foundation
import Glibc
import MobileSyncKit
import SystemKit
import TarKit
import TestSupport
import Testing

@testable import BackupKit

@Suite struct MobileSyncDescriptorTests {
    /// The paths under `directory` this process has open (by `/proc/self/fd`), each once: tests running meanwhile
    /// open only their own scratch directories, so nothing else is counted.
    static func openPaths(under directory: String) throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)
                else { return nil }
                return target == directory || target.hasPrefix(directory + "/") ? target : nil
            })
    }

    /// A sink writing a plain backup of `device` into `backup` (open as `directory`).
    static func sink(_ device: Device, backup: String, directory: Int32) throws -> MobileSyncSink {
        let (_, description, applications, map) = try DeviceInventory.mobileSync(
            root: device.root, created: "2026-12-02T09:00:00Z", tool: "test", engine: .computer)
        let properties = { (keyBag: BackupKeyBag) in
            BackupProperties(
                device: description, applications: applications, date: TestPhone.start, keyBag: keyBag,
                manifestKey: nil, host: "test")
        }
        return try MobileSyncSink(
            directory: directory, shown: backup, map: map, properties: properties,
            keyBag: try PendingKeyBag(unencryptedIterations: BackupEngine.unencryptedKeyBagIterations),
            rootStatus: try FileStatus.of(device.root), interruption: { nil })
    }

    /// Hands `path` (a file of `size` bytes) to `sink`.
    static func begin(_ sink: MobileSyncSink, _ path: String, size: UInt64) throws {
        try path.withCString { name in
            try sink.begin(
                SinkMember(
                    kind: .file, path: UnsafeBufferPointer(start: name, count: strlen(name)), link: nil,
                    mode: UInt32(S_IFREG) | 0o644, uid: 0, gid: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, size: size,
                    attributes: UnsafeRawBufferPointer(start: nil, count: 0)))
        }
    }

    static func write(_ sink: MobileSyncSink, _ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try sink.write($0) }
    }

    @Test func theSinkClosesAFileThatEndsShort() throws {
        try TestPhone.withDevice { device in
            try withTemporaryDirectory { scratch in
                let backup = scratch + "/backup"
                try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: false)
                let directory = FileDescriptor(rawValue: open(backup, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: backup)
                try #require(directory.rawValue >= 0)
                do {
                    let sink = try Self.sink(device, backup: backup, directory: directory.rawValue)
                    // devicectl's manifest, written by the sink itself: ended 7 bytes short by the next member.
                    try Self.begin(sink, Manifest.memberName, size: 10)
                    try Self.write(sink, "abc")
                    let manifest = backup + "/" + MobileSyncSink.manifestName
                    #expect(try Self.openPaths(under: backup).contains(manifest))
                    #expect(throws: BackupError.self) { try Self.begin(sink, "Library/a.txt", size: 5) }
                    #expect(try !Self.openPaths(under: backup).contains(manifest), "closed at the failure, not later")
                    // A content file (the content writer's): ended short by finish, closed once the sink stops.
                    try Self.begin(sink, "Library/b.txt", size: 5)
                    try Self.write(sink, "ab")
                    #expect(throws: BackupError.self) { try sink.finish() }
                    sink.stop()
                }
                #expect(try Self.openPaths(under: backup) == [backup])
            }
        }
    }

    @Test func theSourceClosesAContentFileItRefusesAndTheDirectoryOfABackupItCannotOpen() throws {
        try TestPhone.withDevice { device in
            try withTemporaryDirectory { scratch in
                let backup = scratch + "/backup"
                try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: false)
                do {
                    let directory = FileDescriptor(
                        rawValue: open(backup, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: backup)
                    try #require(directory.rawValue >= 0)
                    let sink = try Self.sink(device, backup: backup, directory: directory.rawValue)
                    try Self.begin(sink, "a.txt", size: 5)
                    try Self.write(sink, "hello")
                    try sink.finish()
                }
                #expect(try Self.openPaths(under: backup) == [])
                // The content file becomes a FIFO: opened (without blocking), then refused as no regular file.
                let fileID = FileID.of(domain: DomainMap.homeDomain, relativePath: "a.txt")
                let content = "\(backup)/\(fileID.prefix(2))/\(fileID)"
                try FileManager.default.removeItem(atPath: content)
                #expect(mkfifo(content, 0o644) == 0)
                do {
                    let source = try MobileSyncSource(path: backup)
                    let reader = try MobileSyncMemberReader(
                        source: source, limit: ExpansionLimit(dataBytes: 1 << 30), interruption: { nil })
                    var refused = false
                    do {
                        while try reader.next() != nil {}
                    } catch RestoreError.refusedMember(_, let reason, _) {
                        refused = reason.contains("is not a regular file")
                    }
                    #expect(refused)
                    #expect(try !Self.openPaths(under: backup).contains(content), "closed at the refusal, not later")
                    try reader.close()
                }
                #expect(try Self.openPaths(under: backup) == [])
                // Manifest.db that is no database (and a backup that is not encrypted): refused, nothing left open.
                let junk = Data("not a database, and long enough".utf8)
                try junk.write(to: URL(fileURLWithPath: backup + "/Manifest.db"))
                #expect(throws: MobileSyncReadError.self) { _ = try MobileSyncSource(path: backup) }
                #expect(try Self.openPaths(under: backup) == [])
            }
        }
    }
}
