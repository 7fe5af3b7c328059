// LazyLibraryEndToEndTests: libarchive, libzstd and SQLite are loaded by the first command that reads an archive,
// compresses one or reads a Manifest.db, not at start-up (CArchive's, CZstd's and CSQLite's Lazy.c): the dynamic
// loader's own log says what it loaded.
import Foundation
import TestSupport
import Testing

@Suite struct LazyLibraryEndToEndTests {
    /// The libraries the dynamic loader opened for `arguments` (`LD_DEBUG=libs`: a line "calling init: PATH" each).
    private func loaded(_ arguments: [String], in phone: PhoneScratch) throws -> [String] {
        let result = try Shell.run(
            DevicectlBinary.path, arguments, environment: ["LD_DEBUG": "libs", "DEVICECTL_NOW": PhoneScratch.now])
        try #require(result.status == 0, "devicectl \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...]).components(separatedBy: "/").last
        }
    }

    @Test func commandsWithoutArchivesLoadNeither() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            for command in [
                ["--version"], ["status", phone.root], ["widget-refresh", phone.root],
                ["launch", phone.root, "--app", "com.example.news"],
            ] {
                let libraries = try loaded(command, in: phone)
                // The loader's log is read as expected: the C library is always there.
                #expect(libraries.contains { $0.hasPrefix("libc.so") }, "\(command[0]): \(libraries)")
                #expect(
                    !libraries.contains {
                        $0.hasPrefix("libarchive") || $0.hasPrefix("libsqlite3") || $0.hasPrefix("libzstd")
                    }, "\(command[0]) loaded \(libraries)")
            }
        }
    }

    @Test func archivesAndManifestDatabasesLoadTheirLibrary() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let archive = phone.dir + "/device.tar", backup = phone.dir + "/mobilesync"
            // A plain tar is formatted by devicectl itself (TarKit's PaxHeader); zstd frames come from libzstd alone;
            // gzip and xz take libarchive's filters.
            let tar = try loaded(["backup", phone.root, "-o", archive, "--no-progress"], in: phone)
            #expect(!tar.contains { $0.hasPrefix("libarchive") || $0.hasPrefix("libsqlite3") || $0.hasPrefix("libzstd") },
                    "\(tar)")
            let zstd = try loaded(
                ["backup", phone.root, "-o", archive + ".zst", "--compression", "zstd", "--no-progress"], in: phone)
            #expect(zstd.contains { $0.hasPrefix("libzstd.so") }, "\(zstd)")
            #expect(!zstd.contains { $0.hasPrefix("libarchive") }, "\(zstd)")
            let gzip = try loaded(
                ["backup", phone.root, "-o", archive + ".gz", "--compression", "gzip", "--no-progress"], in: phone)
            #expect(gzip.contains { $0.hasPrefix("libarchive.so") }, "\(gzip)")
            let listed = try loaded(["list", archive], in: phone)
            #expect(listed.contains { $0.hasPrefix("libarchive.so") }, "\(listed)")
            // A MobileSync backup's Manifest.db is written by devicectl itself (ManifestDatabaseWriter); reading one
            // takes SQLite.
            let sync = try loaded(["backup", phone.root, "--format", "mobilesync", "-o", backup, "--no-progress"], in: phone)
            #expect(!sync.contains { $0.hasPrefix("libsqlite3.so") }, "\(sync)")
            let read = try loaded(["list", backup], in: phone)
            #expect(read.contains { $0.hasPrefix("libsqlite3.so") }, "\(read)")
        }
    }
}
