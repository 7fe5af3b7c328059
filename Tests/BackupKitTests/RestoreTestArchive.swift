// RestoreTestArchive: builds tar streams byte by byte for restore, verify and list tests (hostile ones too),
// with an optional devicectl manifest member computed from the members written.
import BackupKit
import Foundation
import SystemKit

/// A member for `TarBuilder.archive`.
enum TestMember {
    case file(
        String, [UInt8], mode: Int = 0o644, mtime: Int = 1_700_000_000, nanos: Int = 123_456_789,
        xattrs: [(String, [UInt8])] = [])
    case directory(String, mode: Int = 0o755, mtime: Int = 1_700_000_100, nanos: Int = 5)
    case symlink(String, String, mtime: Int = 1_700_000_200)
    case hardlink(String, String)
}

/// A tar stream under construction: ustar headers, pax extended headers, data, padding, end blocks.
struct TarBuilder {
    private(set) var bytes: [UInt8] = []
    /// What the manifest needs, in archive order.
    private(set) var fileLines: [(path: String, size: Int, sha256: String)] = []
    private var counts = (files: 0, bytes: 0, directories: 0, symlinks: 0, hardlinks: 0)
    private let members = try! Manifest.MemberDigest()

    /// A raw 512-byte header (checksum computed). `name` and `link` longer than 100 bytes are cut: use pax.
    mutating func header(
        name: [UInt8], type: UInt8, size: Int = 0, mode: Int = 0o644, mtime: Int = 1_700_000_000,
        uid: Int = 0, gid: Int = 0, link: [UInt8] = [], gnuMagic: Bool = false, sizeField: [UInt8]? = nil,
        patch: [Int: UInt8] = [:]
    ) {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ value: [UInt8], at offset: Int, width: Int) {
            for (index, byte) in value.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            Array(String(String(value, radix: 8).suffix(width - 1)).leftPadded(to: width - 1).utf8) + [0]
        }
        put(name, at: 0, width: 100)
        put(octal(mode, width: 8), at: 100, width: 8)
        put(octal(uid, width: 8), at: 108, width: 8)
        put(octal(gid, width: 8), at: 116, width: 8)
        put(sizeField ?? octal(size, width: 12), at: 124, width: 12)
        put(octal(mtime, width: 12), at: 136, width: 12)
        block[156] = type
        put(link, at: 157, width: 100)
        put(gnuMagic ? Array("ustar  \0".utf8) : Array("ustar\u{0}00".utf8), at: 257, width: 8)
        put(Array("root".utf8), at: 265, width: 32)
        put(Array("root".utf8), at: 297, width: 32)
        for (index, byte) in patch { block[index] = byte }
        for index in 148..<156 { block[index] = 0x20 }
        let sum = block.reduce(0) { $0 + Int($1) }
        put(Array(String(String(sum, radix: 8)).leftPadded(to: 6).utf8) + [0, 0x20], at: 148, width: 8)
        bytes += block
    }

    /// Appends bytes as they are (a hand-made header).
    mutating func append(raw block: [UInt8]) {
        bytes += block
    }

    /// Data followed by zero padding to the next 512-byte boundary.
    mutating func data(_ content: [UInt8]) {
        bytes += content
        bytes += [UInt8](repeating: 0, count: (512 - content.count % 512) % 512)
    }

    /// A pax extended header ('x') with `records`.
    mutating func pax(_ records: [(String, [UInt8])], type: UInt8 = UInt8(ascii: "x")) {
        var body: [UInt8] = []
        for (key, value) in records { body += TarBuilder.paxRecord(key, value) }
        header(name: Array("PaxHeader/x".utf8), type: type, size: body.count)
        data(body)
    }

    /// A pax `path` (or `linkpath`) record when the name does not fit the ustar field as ASCII, as libarchive does.
    static func pathRecords(_ name: String, key: String = "path") -> [(String, [UInt8])] {
        name.utf8.count > 100 || !name.utf8.allSatisfy({ $0 < 0x80 }) ? [(key, Array(name.utf8))] : []
    }

    static func paxRecord(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let rest = Array(" \(key)=".utf8) + value + [0x0A]
        var length = rest.count + 1
        while String(length).count + rest.count != length { length = String(length).count + rest.count }
        return Array(String(length).utf8) + rest
    }

    /// The end-of-archive mark (two zero blocks) and zero padding to a 10240-byte record.
    mutating func end() {
        bytes += [UInt8](repeating: 0, count: 1024)
        bytes += [UInt8](repeating: 0, count: (10240 - bytes.count % 10240) % 10240)
    }

    // MARK: - Raw members (hostile tests)

    /// A member with exactly this name (pax `path` when it does not fit 100 bytes) and `data`.
    mutating func raw(
        _ name: String, type: Character = "0", data content: [UInt8] = [], link: String = "", mode: Int = 0o644
    ) {
        var records = TarBuilder.pathRecords(name)
        if link.utf8.count > 100 { records.append(("linkpath", Array(link.utf8))) }
        if !records.isEmpty { pax(records) }
        header(name: Array(name.utf8), type: type.asciiValue!, size: content.count, mode: mode, link: Array(link.utf8))
        if !content.isEmpty { data(content) }
    }

    /// A complete raw archive: `body` adds members, then the end mark (no manifest).
    static func raw(_ body: (inout TarBuilder) -> Void) -> [UInt8] {
        var builder = TarBuilder()
        body(&builder)
        builder.end()
        return builder.bytes
    }

    // MARK: - Well-formed members (as a backup would write them)

    /// Appends `member` with a pax header carrying the path, nanosecond mtime and xattrs.
    mutating func add(_ member: TestMember) {
        switch member {
        case .file(let path, let content, let mode, let mtime, let nanos, let xattrs):
            var records =
                TarBuilder.pathRecords(path) + [("mtime", Array("\(mtime).\(String(format: "%09d", nanos))".utf8))]
            for (name, value) in xattrs { records.append(("SCHILY.xattr.\(name)", value)) }
            pax(records)
            header(name: Array(path.utf8), type: UInt8(ascii: "0"), size: content.count, mode: mode, mtime: mtime)
            data(content)
            fileLines.append((path, content.count, try! SHA256Digest.hex(of: content)))
            counts.files += 1
            counts.bytes += content.count
            members.add(
                kind: UInt8(ascii: "f"), path: Array(path.utf8), permissions: UInt32(mode), uid: 0, gid: 0,
                size: UInt64(content.count), mtimeSeconds: Int64(mtime), mtimeNanoseconds: Int32(nanos),
                link: nil, xattrs: xattrs.map { (name: $0.0, value: $0.1) })
        case .directory(let path, let mode, let mtime, let nanos):
            pax(
                TarBuilder.pathRecords(path + "/") + [
                    ("mtime", Array("\(mtime).\(String(format: "%09d", nanos))".utf8))
                ])
            header(name: Array((path + "/").utf8), type: UInt8(ascii: "5"), mode: mode, mtime: mtime)
            counts.directories += 1
            members.add(
                kind: UInt8(ascii: "d"), path: Array(path.utf8), permissions: UInt32(mode), uid: 0, gid: 0, size: 0,
                mtimeSeconds: Int64(mtime), mtimeNanoseconds: Int32(nanos), link: nil, xattrs: [])
        case .symlink(let path, let target, let mtime):
            let records = TarBuilder.pathRecords(path) + TarBuilder.pathRecords(target, key: "linkpath")
            if !records.isEmpty { pax(records) }
            header(name: Array(path.utf8), type: UInt8(ascii: "2"), mode: 0o777, mtime: mtime, link: Array(target.utf8))
            counts.symlinks += 1
            members.add(
                kind: UInt8(ascii: "l"), path: Array(path.utf8), permissions: 0o777, uid: 0, gid: 0, size: 0,
                mtimeSeconds: Int64(mtime), mtimeNanoseconds: 0, link: Array(target.utf8), xattrs: [])
        case .hardlink(let path, let target):
            let records = TarBuilder.pathRecords(path) + TarBuilder.pathRecords(target, key: "linkpath")
            if !records.isEmpty { pax(records) }
            header(name: Array(path.utf8), type: UInt8(ascii: "1"), mode: 0o644, link: Array(target.utf8))
            counts.hardlinks += 1
            members.add(
                kind: UInt8(ascii: "h"), path: Array(path.utf8), permissions: 0o644, uid: 0, gid: 0, size: 0,
                mtimeSeconds: 1_700_000_000, mtimeNanoseconds: 0, link: Array(target.utf8), xattrs: [])
        }
    }

    /// The manifest member, as the last member (call `end()` after it). `headerLine` replaces the header
    /// built from `apps` and `widgets` (a hostile one); `leading` and `beforeTotals` are written as they are
    /// before the header and the totals line. The members line covers all of it, as a backup's would.
    mutating func manifest(
        apps: [Manifest.App] = [], widgets: [String] = [], udid: String? = "SOURCE-UDID", withMembers: Bool = true,
        headerLine: [UInt8]? = nil, leading: [UInt8] = [], beforeTotals: [UInt8] = []
    ) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let manifestHeader = Manifest.Header(
            tool: "devicectl test", created: "2026-11-29T12:00:00Z", source: Manifest.Source(udid: udid), apps: apps,
            groups: Array(Set(apps.flatMap(\.groups))).sorted(), widgets: widgets.map(Manifest.Widget.init))
        var text = leading + (headerLine ?? Array(try! encoder.encode(manifestHeader))) + [0x0A]
        for line in fileLines {
            text +=
                Array(try! encoder.encode(Manifest.File(path: line.path, size: UInt64(line.size), sha256: line.sha256)))
                + [0x0A]
        }
        let totals = Manifest.Totals(
            files: UInt64(counts.files), bytes: UInt64(counts.bytes), directories: UInt64(counts.directories),
            symlinks: UInt64(counts.symlinks), hardlinks: UInt64(counts.hardlinks), excluded: Manifest.Excluded())
        text += beforeTotals + Array(try! encoder.encode(totals)) + [0x0A]
        if withMembers {
            let line = members.line(manifestSha256: try! SHA256Digest.hex(of: text))
            text += Array(try! encoder.encode(line)) + [0x0A]
        }
        header(name: Array(Manifest.memberName.utf8), type: UInt8(ascii: "0"), size: text.count, mode: 0o644)
        data(text)
    }

    /// A complete archive of `members`, with a manifest unless `manifest` is false.
    static func archive(
        _ members: [TestMember], manifest: Bool = true, apps: [Manifest.App] = [], widgets: [String] = []
    ) -> [UInt8] {
        var builder = TarBuilder()
        for member in members { builder.add(member) }
        if manifest { builder.manifest(apps: apps, widgets: widgets) }
        builder.end()
        return builder.bytes
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension TarBuilder {
    /// The members of the tree at `root`, depth first, names sorted, skipping paths `skip` rejects (like a
    /// backup skipping bundles and DeviceLocal). Directories, regular files and symlinks.
    static func members(ofTree root: String, skip: (String) -> Bool) throws -> [TestMember] {
        var result: [TestMember] = []
        func visit(_ relative: String) throws {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: relative.isEmpty ? root : root + "/" + relative
            ).sorted()
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                if skip(child) { continue }
                let path = root + "/" + child
                let status = try FileStatus.of(path)
                let mode = Int(status.permissions)
                switch status.kind {
                case .directory:
                    result.append(
                        .directory(
                            child, mode: mode, mtime: Int(status.mtimeSeconds), nanos: Int(status.mtimeNanoseconds)))
                    try visit(child)
                case .regular:
                    let bytes = try FileDescriptor.open(path, flags: O_RDONLY).readAll()
                    result.append(
                        .file(
                            child, bytes, mode: mode, mtime: Int(status.mtimeSeconds),
                            nanos: Int(status.mtimeNanoseconds)))
                case .symlink:
                    result.append(
                        .symlink(
                            child, try FileManager.default.destinationOfSymbolicLink(atPath: path),
                            mtime: Int(status.mtimeSeconds)))
                default:
                    break
                }
            }
        }
        try visit("")
        return result
    }
}
