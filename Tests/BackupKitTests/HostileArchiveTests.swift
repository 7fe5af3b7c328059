// HostileArchiveTests: a self-contained corpus of hostile archives, each built here byte by byte. Every one
// must fail the whole restore with a RestoreError, create nothing anywhere (the whole scratch area, with the
// sentinel directory beside ROOT's parent, is snapshotted), and leave ROOT exactly as it was.
@testable import BackupKit
import Foundation
import SystemKit
import TarKit
import TestSupport
import Testing

/// One hostile archive: `build` gets the sentinel's absolute path (targets for absolute-path attacks).
struct HostileCase: CustomTestStringConvertible, Sendable {
    let name: String
    let build: @Sendable (String) -> [UInt8]
    var maxBytes: UInt64? = nil
    var testDescription: String { name }
}

@Suite struct HostileArchiveTests {
    static let data = Array("owned\n".utf8)

    static let cases: [HostileCase] = [
        // 1. Paths
        HostileCase(name: "absolute path") { sentinel in TarBuilder.raw { $0.raw(sentinel + "/absolute", data: data) }
        },
        HostileCase(name: "absolute path in a pax header") { sentinel in
            TarBuilder.raw {
                $0.pax([("path", Array((sentinel + "/pax-absolute").utf8))])
                $0.header(name: Array("harmless".utf8), type: UInt8(ascii: "0"), size: data.count)
                $0.data(data)
            }
        },
        HostileCase(name: "double-slash absolute path") { sentinel in
            TarBuilder.raw { $0.raw("/" + sentinel + "/double", data: data) }
        },
        HostileCase(name: "absolute ustar prefix") { sentinel in
            TarBuilder.raw {
                var block = TarBuilder()
                block.header(name: Array("prefixed".utf8), type: UInt8(ascii: "0"), size: data.count)
                var header = block.bytes
                for (index, byte) in Array(sentinel.utf8).prefix(154).enumerated() { header[345 + index] = byte }
                for index in 148..<156 { header[index] = 0x20 }
                let sum = header.reduce(0) { $0 + Int($1) }
                let text = Array(String(String(sum, radix: 8)).leftPadded(to: 6).utf8) + [0, 0x20]
                for (index, byte) in text.enumerated() { header[148 + index] = byte }
                $0.append(raw: header)
                $0.data(data)
            }
        },
        HostileCase(name: "parent directory component") { _ in TarBuilder.raw { $0.raw("../escaped", data: data) } },
        HostileCase(name: "nested parent components") { _ in
            TarBuilder.raw { $0.raw("Library/../../../sentinel/nested", data: data) }
        },
        HostileCase(name: "parent components in a GNU long name") { _ in
            TarBuilder.raw {
                let long = Array(("../../sentinel/" + String(repeating: "x", count: 120)).utf8)
                $0.header(
                    name: Array("././@LongLink".utf8), type: UInt8(ascii: "L"), size: long.count + 1, gnuMagic: true)
                $0.data(long + [0])
                $0.header(name: Array("short".utf8), type: UInt8(ascii: "0"), size: data.count, gnuMagic: true)
                $0.data(data)
            }
        },
        HostileCase(name: "empty name") { _ in
            TarBuilder.raw {
                $0.header(name: [], type: UInt8(ascii: "0"), size: data.count)
                $0.data(data)
            }
        },
        HostileCase(name: "NUL inside a pax path") { _ in
            TarBuilder.raw {
                $0.pax([("path", Array("ok".utf8) + [0] + Array("../../sentinel/nul".utf8))])
                $0.header(name: Array("ok".utf8), type: UInt8(ascii: "0"), size: data.count)
                $0.data(data)
            }
        },
        HostileCase(name: "the root itself as a file") { _ in TarBuilder.raw { $0.raw(".", data: data) } },
        HostileCase(name: "name longer than PATH_MAX") { _ in
            TarBuilder.raw { $0.raw(String(repeating: "abcdefgh/", count: 500) + "f", data: data) }
        },
        HostileCase(name: "component longer than NAME_MAX") { _ in
            TarBuilder.raw { $0.raw(String(repeating: "n", count: 300), data: data) }
        },
        HostileCase(name: "more than 256 levels deep") { _ in
            TarBuilder.raw { $0.raw(String(repeating: "d/", count: 300) + "f", data: data) }
        },
        HostileCase(name: "reserved staging name") { _ in
            TarBuilder.raw { $0.raw(".devicectl-restore-1-abc/x", data: data) }
        },

        // 2. Symlinks
        HostileCase(name: "symlink then a file through it") { _ in
            TarBuilder.raw {
                $0.raw("Documents", type: "5")
                $0.raw("Library2", type: "2", link: "Documents")
                $0.raw("Library2/through", data: data)
            }
        },
        HostileCase(name: "directory symlink out then files inside it") { _ in
            TarBuilder.raw {
                $0.raw("out", type: "2", link: "../../sentinel")
                $0.raw("out/inside", data: data)
            }
        },
        HostileCase(name: "symlink to an absolute path") { sentinel in
            TarBuilder.raw { $0.raw("abs", type: "2", link: sentinel) }
        },
        HostileCase(name: "symlink climbing out") { _ in TarBuilder.raw { $0.raw("up", type: "2", link: "../..") } },
        HostileCase(name: "nested symlink climbing out") { _ in
            TarBuilder.raw {
                $0.raw("Library", type: "5")
                $0.raw("Library/x", type: "2", link: "../../sentinel/file")
            }
        },
        HostileCase(name: "symlink to the root itself") { _ in TarBuilder.raw { $0.raw("self", type: "2", link: ".") }
        },
        HostileCase(name: "symlink with an empty target") { _ in TarBuilder.raw { $0.raw("empty", type: "2", link: "") }
        },
        HostileCase(name: "symlink into DeviceLocal") { _ in
            TarBuilder.raw { $0.raw("id", type: "2", link: "DeviceLocal/identity.plist") }
        },
        HostileCase(name: "chain of symlinks that escapes only when followed") { _ in
            TarBuilder.raw {
                $0.raw("x", type: "5")
                $0.raw("a/b/c", type: "5")
                $0.raw("a/b/c/l", type: "2", link: "../../../x")  // textually inside: resolves to x
                $0.raw("a/b/c/m", type: "2", link: "l/../../y")  // textually a/b/y; really x/../../y: outside
            }
        },

        // 3. Hard links
        HostileCase(name: "hard link to an absolute path") { sentinel in
            TarBuilder.raw { $0.raw("h", type: "1", link: sentinel + "/file") }
        },
        HostileCase(name: "hard link climbing out") { _ in
            TarBuilder.raw { $0.raw("h", type: "1", link: "../../sentinel/file") }
        },
        HostileCase(name: "hard link through a symlink") { _ in
            TarBuilder.raw {
                $0.raw("real", type: "5")
                $0.raw("real/f", data: data)
                $0.raw("via", type: "2", link: "real")
                $0.raw("h", type: "1", link: "via/f")
            }
        },
        HostileCase(name: "hard link to itself") { _ in TarBuilder.raw { $0.raw("h", type: "1", link: "h") } },
        HostileCase(name: "hard link to a member that does not exist") { _ in
            TarBuilder.raw { $0.raw("h", type: "1", link: "nothing") }
        },
        HostileCase(name: "hard link to a later member") { _ in
            TarBuilder.raw {
                $0.raw("h", type: "1", link: "later")
                $0.raw("later", data: data)
            }
        },
        HostileCase(name: "hard link carrying data") { _ in
            TarBuilder.raw {
                $0.raw("f", data: data)
                $0.pax([("comment", Array("pax archive".utf8))])
                $0.header(name: Array("h".utf8), type: UInt8(ascii: "1"), size: data.count, link: Array("f".utf8))
                $0.data(data)
            }
        },
        HostileCase(name: "hard link to a directory") { _ in
            TarBuilder.raw {
                $0.raw("d", type: "5")
                $0.raw("h", type: "1", link: "d")
            }
        },
        HostileCase(name: "hard link to a symlink") { _ in
            TarBuilder.raw {
                $0.raw("t", data: data)
                $0.raw("s", type: "2", link: "t")
                $0.raw("h", type: "1", link: "s")
            }
        },

        // 4. Replacing what an earlier member made
        HostileCase(name: "directory then a symlink at the same path") { _ in
            TarBuilder.raw {
                $0.raw("Documents", type: "5")
                $0.raw("Library", type: "5")
                $0.raw("Library", type: "2", link: "Documents")
            }
        },
        HostileCase(name: "directory then a file at the same path") { _ in
            TarBuilder.raw {
                $0.raw("Library", type: "5")
                $0.raw("Library", data: data)
            }
        },
        HostileCase(name: "file then a directory at the same path") { _ in
            TarBuilder.raw {
                $0.raw("x", data: data)
                $0.raw("x", type: "5")
            }
        },
        HostileCase(name: "file then a symlink at the same path") { _ in
            TarBuilder.raw {
                $0.raw("x", data: data)
                $0.raw("x", type: "2", link: "y")
            }
        },
        HostileCase(name: "symlink then a directory at the same path") { _ in
            TarBuilder.raw {
                $0.raw("x", type: "2", link: "y")
                $0.raw("x", type: "5")
            }
        },
        HostileCase(name: "duplicate file") { _ in
            TarBuilder.raw {
                $0.raw("x", data: data)
                $0.raw("x", data: data)
            }
        },
        // Files of 8 KiB and more: the reading thread creates and writes them itself (`writesWhereRead`).
        HostileCase(name: "duplicate large file") { _ in
            let large = [UInt8](repeating: 7, count: 3 * StagingPipeline.readerWrittenSize)
            return TarBuilder.raw {
                $0.raw("big", data: large)
                $0.raw("big", data: large)
            }
        },
        HostileCase(name: "large file over a small one") { _ in
            TarBuilder.raw {
                $0.raw("x", data: data)
                $0.raw("x", data: [UInt8](repeating: 7, count: StagingPipeline.readerWrittenSize))
            }
        },
        HostileCase(name: "duplicate directory") { _ in
            TarBuilder.raw {
                $0.raw("d", type: "5")
                $0.raw("d", type: "5")
            }
        },

        // 5. Special files
        HostileCase(name: "FIFO") { _ in TarBuilder.raw { $0.raw("fifo", type: "6") } },
        HostileCase(name: "character device") { _ in TarBuilder.raw { $0.raw("null", type: "3") } },
        HostileCase(name: "block device") { _ in TarBuilder.raw { $0.raw("disk", type: "4") } },

        // 7. Headers, manifests, bombs
        HostileCase(name: "pax header larger than 1 MiB") { _ in
            TarBuilder.raw {
                $0.pax([("comment", [UInt8](repeating: UInt8(ascii: "A"), count: 1_100_000))])
                $0.raw("x", data: data)
            }
        },
        HostileCase(name: "malformed pax record") { _ in
            TarBuilder.raw {
                $0.header(name: Array("PaxHeader/x".utf8), type: UInt8(ascii: "x"), size: 12)
                $0.data(Array("99 path=x/\n\n".utf8))
                $0.raw("x", data: data)
            }
        },
        HostileCase(name: "GNU sparse 1.0 map with ten million entries") { _ in
            TarBuilder.raw {
                $0.pax([
                    ("GNU.sparse.major", Array("1".utf8)), ("GNU.sparse.minor", Array("0".utf8)),
                    ("GNU.sparse.name", Array("holes".utf8)), ("GNU.sparse.realsize", Array("4096".utf8)),
                ])
                let map = Array("10000000\n".utf8) + [UInt8](repeating: 0x30, count: 20) + [0x0A]
                $0.header(name: Array("GNUSparseFile.0/holes".utf8), type: UInt8(ascii: "0"), size: 4096)
                $0.data(map + [UInt8](repeating: 0x0A, count: 4096 - map.count))
            }
        },
        HostileCase(name: "old GNU sparse map of 5000 extension blocks") { _ in
            TarBuilder.raw {
                var first: [Int: UInt8] = [482: 1]
                for (index, byte) in Array("00000000000".utf8).enumerated() { first[386 + index] = byte }
                for (index, byte) in Array("00000000001".utf8).enumerated() { first[398 + index] = byte }
                $0.header(name: Array("holes".utf8), type: UInt8(ascii: "S"), size: 0, gnuMagic: true, patch: first)
                for block in 1...5000 {
                    var extensionBlock = [UInt8](repeating: 0, count: 512)
                    for entry in 0..<21 {
                        let offset = Array(
                            String(String((block * 21 + entry) * 1024, radix: 8)).leftPadded(to: 11).utf8)
                        for (index, byte) in offset.enumerated() { extensionBlock[entry * 24 + index] = byte }
                        for (index, byte) in Array("00000000001".utf8).enumerated() {
                            extensionBlock[entry * 24 + 12 + index] = byte
                        }
                    }
                    extensionBlock[504] = 1
                    $0.append(raw: extensionBlock)
                }
            }
        },
        HostileCase(name: "64 MiB of padding after the end mark (zstd)") { _ in
            var tar = TarBuilder.archive([.file("a", data)], manifest: true)
            tar += [UInt8](repeating: 0, count: 65 << 20)
            return [UInt8]((try? Shell.run("zstd", ["-c", "-q"], input: Data(tar)).stdoutData) ?? Data())
        },
        HostileCase(name: "member after the manifest") { _ in
            var builder = TarBuilder()
            builder.add(.file("a", data))
            builder.manifest()
            builder.raw("late", data: data)
            builder.end()
            return builder.bytes
        },
        HostileCase(name: "manifest name used by a directory") { _ in
            TarBuilder.raw { $0.raw(".devicectl-manifest.jsonl", type: "5") }
        },
        HostileCase(name: "file whose data differs from the manifest") { _ in
            var builder = TarBuilder()
            builder.add(.file("a", data))
            var bytes = builder.bytes
            builder.manifest()
            builder.end()
            bytes = builder.bytes
            let index = bytes.firstRange(of: data)!.lowerBound
            bytes[index] ^= 0x20  // 'o' -> 'O': still valid tar, wrong digest
            return bytes
        },
        HostileCase(name: "file missing from the manifest") { _ in
            var builder = TarBuilder()
            builder.add(.file("a", data))
            builder.manifest(withMembers: false)
            var tail = TarBuilder()
            tail.add(.file("b", data))
            let manifestStart = builder.bytes.count - 1024  // header + one block of manifest data
            var bytes = Array(builder.bytes[..<manifestStart]) + tail.bytes + Array(builder.bytes[manifestStart...])
            bytes += [UInt8](repeating: 0, count: 1024)
            return bytes
        },
        HostileCase(
            name: "decompression bomb (gzip)",
            build: { _ in
                let tar = TarBuilder.raw { $0.raw("zeros", data: [UInt8](repeating: 0, count: 24 << 20)) }
                return [UInt8]((try? Shell.run("gzip", ["-c"], input: Data(tar)).stdoutData) ?? Data())
            }, maxBytes: 4 << 20),
        HostileCase(
            name: "many small files beyond the limit",
            build: { _ in
                TarBuilder.raw { builder in
                    for index in 0..<40 { builder.raw("f\(index)", data: [UInt8](repeating: 7, count: 200_000)) }
                }
            }, maxBytes: 4 << 20),
        HostileCase(name: "not a tar archive") { _ in
            Array("PK\u{3}\u{4} this is not a tar archive".utf8) + [UInt8](repeating: 1, count: 2000)
        },
        HostileCase(name: "empty input") { _ in [] },
    ]

    /// Every case with files made by the reader and by the writer thread (a restore switches between them).
    @Test(arguments: cases, [FileCreation.reader, .writer])
    func hostileArchiveFailsAndChangesNothing(_ hostile: HostileCase, _ creation: FileCreation) throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(hostile.build(scratch.sentinel))
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.self) {
                try scratch.restore { options in
                    options.maxBytes = hostile.maxBytes
                    options.fileCreation = creation
                }
            }
            let after = try scratch.snapshot()
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    /// Archives made by the real tools: GNU tar with -P keeps absolute names; a 1 TB sparse file is a bomb.
    @Test func toolMadeHostileArchives() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let before = try scratch.snapshot()
            try Shell.run("tar", ["-P", "-cf", scratch.archive, scratch.sentinel + "/file"])
            #expect(throws: RestoreError.self) { try scratch.restore() }
            try FileManager.default.createDirectory(atPath: base + "/src", withIntermediateDirectories: true)
            try Shell.run("truncate", ["-s", "1T", base + "/src/huge"])
            try Shell.run("tar", ["-S", "-cf", scratch.archive, "-C", base + "/src", "huge"])
            try FileManager.default.removeItem(atPath: base + "/src")
            var thrown: (any Error)?
            do { try scratch.restore() } catch { thrown = error }
            switch thrown as? RestoreError {
            case .noSpace: break
            case .system(let cause) where [ENOSPC, EDQUOT, EFBIG].contains(cause.code): break
            case .damaged(let cause) where cause.description.contains("sparse bomb"): break
            default:
                Issue.record("a 1 TB sparse member must be refused (sparse bomb or space), got \(String(describing: thrown))")
                return
            }
            #expect(try scratch.snapshot() == before)
        }
    }

    @Test func corpusCoversTheChecklist() {
        #expect(Self.cases.count >= 30)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }
}
