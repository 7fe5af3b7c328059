// ArchiveMutator+Fields: mutations that keep the tar framing valid so they reach the deeper checks: header
// fields rewritten with a correct checksum, pax records edited (sizes, names, times, xattrs, sparse maps),
// and the manifest's JSON lines damaged with the member's size kept consistent.
import Foundation
import TestSupport

extension ArchiveMutator {
    static let hostileNames: [String] = [
        "../escape", "/absolute", "a/../../x", "", ".", "./", "..", "//x", "Library/../../x",
        "DeviceLocal/identity.plist",
        "DeviceLocal/x", ".devicectl-restore-1-x/f", ".devicectl-manifest.jsonl", "Library", "Containers/Data",
        "a\u{1}b", "dir/", String(repeating: "n", count: 300), "docs/link/through", "x/./y", "ünï/../../z",
    ]
    static let hostileTargets: [String] = [
        "/etc/passwd", "../../sentinel/file", "..", "/", "", "Library", ".", "docs/link", "a.txt", "../..",
        "DeviceLocal/identity.plist", String(repeating: "../", count: 50), "docs", "self",
    ]
    static let weirdNumbers: [String] = [
        "0", "-1", "1", "99999999999999999999999", "1e9", "1.5", "0.000000001", "abc", "", " 12", "077",
        "18446744073709551615",
        "9223372036854775807", "-9223372036854775808", "1700000000.999999999999", "1700000000.-5", "0x10",
    ]

    // MARK: - Header fields

    mutating func mutateHeader(_ bytes: inout [UInt8], _ entry: TarLayout.Entry) {
        let header = entry.header
        let names = TarLayout(bytes).entries.map(\.name)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            let name =
                Bool.random(using: &rng)
                ? Array(Self.hostileNames.randomElement(using: &rng)!.utf8)
                : names.randomElement(using: &rng) ?? []
            note("name of '\(text(entry.name))' = '\(text(name))'")
            TarLayout.setField(&bytes, header: header, offset: 0, width: 100, name)
        case 1:
            let mode = [0, 0o7777, 0o4755, 0o2755, 0o1000, 0o777, 0o000, Int.random(in: 0...0o7777777, using: &rng)]
                .randomElement(using: &rng)!
            note("mode of '\(text(entry.name))' = \(String(mode, radix: 8))")
            TarLayout.setField(&bytes, header: header, offset: 100, width: 8, TarLayout.octal(mode, width: 8))
        case 2:
            let offset = Bool.random(using: &rng) ? 108 : 116
            let value = numberField(width: 8)
            note("\(offset == 108 ? "uid" : "gid") of '\(text(entry.name))' = \(value)")
            TarLayout.setField(&bytes, header: header, offset: offset, width: 8, value)
        case 3:
            let current = TarLayout.number(bytes[(header + 124)..<(header + 136)]) ?? 0
            let choices = [0, current + 1, max(0, current - 1), current + 512, max(0, current - 512), 1 << 33 - 1]
            let value =
                Bool.random(using: &rng)
                ? TarLayout.octal(choices.randomElement(using: &rng)!, width: 12) : numberField(width: 12)
            note("size of '\(text(entry.name))' = \(value)")
            TarLayout.setField(&bytes, header: header, offset: 124, width: 12, value)
        case 4:
            let value = numberField(width: 12)
            note("mtime of '\(text(entry.name))' = \(value)")
            TarLayout.setField(&bytes, header: header, offset: 136, width: 12, value)
        case 5:
            let types = Array("0123456789xgLKSVDAMN\0".utf8) + [UInt8.random(in: 0...255, using: &rng)]
            let type = types.randomElement(using: &rng)!
            note("type of '\(text(entry.name))' = \(type)")
            TarLayout.setField(&bytes, header: header, offset: 156, width: 1, [type])
        case 6:
            let target =
                Bool.random(using: &rng)
                ? Array(Self.hostileTargets.randomElement(using: &rng)!.utf8)
                : names.randomElement(using: &rng) ?? []
            note("link name of '\(text(entry.name))' = '\(text(target))'")
            TarLayout.setField(&bytes, header: header, offset: 157, width: 100, target)
        case 7:
            let magic = [
                Array("ustar  \0".utf8), [UInt8](repeating: 0, count: 8), Array("ustar\u{0}00".utf8), randomBytes(8),
            ]
            .randomElement(using: &rng)!
            note("magic of '\(text(entry.name))' = \(magic)")
            TarLayout.setField(&bytes, header: header, offset: 257, width: 8, magic)
        case 8:
            let prefix = ["..", "/", "a/b", "../..", String(repeating: "p", count: 155), "DeviceLocal"].randomElement(
                using: &rng)!
            note("prefix of '\(text(entry.name))' = '\(prefix)'")
            TarLayout.setField(&bytes, header: header, offset: 345, width: 155, Array(prefix.utf8))
        default:
            // A GNU long-name header in front of the member.
            let name = Array(Self.hostileNames.randomElement(using: &rng)!.utf8) + [0]
            note("GNU long name '\(text(name))' before '\(text(entry.name))'")
            let long = TarLayout.header(name: Array("././@LongLink".utf8), type: UInt8(ascii: "L"), size: name.count)
            bytes.insert(contentsOf: long + TarLayout.padding(name), at: header)
        }
    }

    /// A numeric header field: octal, base-256 (huge or negative), or not a number at all.
    mutating func numberField(width: Int) -> [UInt8] {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return TarLayout.octal(0, width: width)
        case 1: return TarLayout.octal(Int.random(in: 0...Int(1) << (3 * (width - 1)) - 1, using: &rng), width: width)
        case 2: return [0x80] + [UInt8](repeating: 0, count: width - 3) + [0x7F, 0xFF]  // base-256, large
        case 3: return [UInt8](repeating: 0xFF, count: width)  // base-256 -1
        case 4: return Array("garbage!!!!!".utf8.prefix(width))
        default: return [0x80] + randomBytes(width - 1)
        }
    }

    // MARK: - Pax records

    mutating func mutatePax(_ bytes: inout [UInt8], _ entry: TarLayout.Entry) {
        let keys = [
            "path", "linkpath", "size", "mtime", "atime", "uid", "gid", "uname", "SCHILY.xattr.user.fuzz",
            "SCHILY.xattr.security.selinux", "SCHILY.xattr.trusted.x", "SCHILY.xattr.", "LIBARCHIVE.xattr.user.x",
            "GNU.sparse.major", "GNU.sparse.minor", "GNU.sparse.name", "GNU.sparse.realsize", "GNU.sparse.size",
            "GNU.sparse.map", "GNU.sparse.numblocks", "GNU.sparse.offset", "GNU.sparse.numbytes",
            "hdrcharset", "unknown.key", "comment", "SCHILY.fflags", "LIBARCHIVE.symlinktype",
        ]
        let choice = Int.random(in: 0..<6, using: &rng)
        if choice == 5 {
            // Broken record framing: a length that does not match, or a stray byte.
            TarLayout.editPax(&bytes, entry) { records in records.records.append(("path", Array("x".utf8))) }
            let pax = entry.pax ?? entry.header
            let size = TarLayout.number(bytes[(pax + 124)..<(pax + 136)]) ?? 0
            guard size > 0 else { return }
            let at = pax + 512 + Int.random(in: 0..<size, using: &rng)
            bytes[at] = [UInt8(ascii: "9"), UInt8(ascii: "0"), 0x20, 0, UInt8(ascii: "=")].randomElement(using: &rng)!
            note("pax body byte \(at) = \(bytes[at]) on '\(text(entry.name))'")
            return
        }
        var rng = self.rng
        var steps: [String] = []
        TarLayout.editPax(&bytes, entry) { records in
            switch choice {
            case 0, 1:
                let key = keys.randomElement(using: &rng)!
                let value = ArchiveMutator.paxValue(for: key, using: &rng)
                steps.append("pax \(key)=\(text(value)) on '\(text(entry.name))'")
                records.records.append((key, value))
            case 2 where !records.records.isEmpty:
                let index = Int.random(in: 0..<records.records.count, using: &rng)
                let value = ArchiveMutator.paxValue(for: records.records[index].key, using: &rng)
                steps.append("pax \(records.records[index].key) := \(text(value)) on '\(text(entry.name))'")
                records.records[index].value = value
            case 3 where !records.records.isEmpty:
                let index = Int.random(in: 0..<records.records.count, using: &rng)
                steps.append("drop pax \(records.records[index].key) on '\(text(entry.name))'")
                records.records.remove(at: index)
            default:
                // A sparse map (PAX 0.1) on a file: data then comes as the listed regions.
                let real = [0, 1, 1000, 200_003, 1 << 40, Int.random(in: 0...100_000, using: &rng)].randomElement(
                    using: &rng)!
                let map = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                    "\(Int.random(in: 0...300_000, using: &rng)),\(Int.random(in: 0...5000, using: &rng))"
                }.joined(separator: ",")
                steps.append("pax sparse map \(map) realsize \(real) on '\(text(entry.name))'")
                records.records += [
                    ("GNU.sparse.map", Array(map.utf8)), ("GNU.sparse.size", Array(String(real).utf8)),
                    ("GNU.sparse.numblocks", Array(String(map.split(separator: ",").count / 2).utf8)),
                ]
            }
        }
        self.rng = rng
        for step in steps { note(step) }
    }

    static func paxValue(for key: String, using rng: inout SeededGenerator) -> [UInt8] {
        switch key {
        case "path", "linkpath", "GNU.sparse.name":
            return Array((hostileNames + hostileTargets).randomElement(using: &rng)!.utf8)
                + (Int.random(in: 0..<8, using: &rng) == 0 ? [0, UInt8(ascii: "x")] : [])
        case "SCHILY.xattr.user.fuzz", "SCHILY.xattr.security.selinux", "SCHILY.xattr.trusted.x", "SCHILY.xattr.":
            return Bool.random(using: &rng)
                ? (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                : [UInt8](repeating: UInt8(ascii: "v"), count: [70_000, 1 << 20].randomElement(using: &rng)!)
        case "hdrcharset":
            return Array(["BINARY", "ISO-IR 10646 2000 UTF-8", "nonsense"].randomElement(using: &rng)!.utf8)
        default:
            return Array(weirdNumbers.randomElement(using: &rng)!.utf8)
        }
    }

    // MARK: - Manifest

    static let badLines: [String] = [
        "{", "}", "null", "[]", "{}", "\"", "{\"kind\":\"file\"}", "{\"kind\":\"header\",\"formatVersion\":2}",
        "{\"kind\":\"file\",\"path\":\"../x\",\"size\":-1,\"sha256\":\"zz\"}", "{\"kind\":\"totals\",\"files\":1e999}",
        "{\"kind\":\"file\",\"path\":\"\\ud800\",\"size\":1,\"sha256\":\"00\"}", "{\"a\":\"\\u0000\"}", "{\"kind\":1}",
        String(repeating: "[", count: 100_000), "{\"kind\":\"members\",\"count\":18446744073709551616}",
        "{\"kind\":\"file\",\"path\":\"a\",\"size\":99999999999999999999999,\"sha256\":\"\"}", "\u{0}\u{1}",
        "{\"kind\":\"header\",\"format\":\"devicectl-backup\",\"formatVersion\":1,\"apps\":[{\"bundleId\":\"../../evil\"}]}",
        "{\"kind\":\"header\",\"format\":\"devicectl-backup\",\"formatVersion\":1,\"apps\":[{\"bundleId\":\"x\",\"groups\":[\"../g\"]}]}",
    ]

    mutating func mutateManifest(_ bytes: inout [UInt8], _ entry: TarLayout.Entry) {
        let dataStart = entry.header + 512
        let size = min(bytes.count, entry.range.upperBound) - dataStart
        let declared = TarLayout.number(bytes[(entry.header + 124)..<(entry.header + 136)]) ?? 0
        var body = Array(bytes[dataStart..<(dataStart + min(max(0, size), declared))])
        var lines = body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        var finalNewline = true
        switch Int.random(in: 0..<8, using: &rng) {
        case 0 where !lines.isEmpty:
            let index = Int.random(in: 0..<lines.count, using: &rng)
            note("manifest: drop line \(index)")
            lines.remove(at: index)
        case 1 where !lines.isEmpty:
            let index = Int.random(in: 0..<lines.count, using: &rng)
            note("manifest: duplicate line \(index)")
            lines.insert(lines[index], at: Int.random(in: 0...lines.count, using: &rng))
        case 2 where lines.count >= 2:
            let a = Int.random(in: 0..<lines.count, using: &rng)
            let b = Int.random(in: 0..<lines.count, using: &rng)
            note("manifest: swap lines \(a) and \(b)")
            lines.swapAt(a, b)
        case 3 where !lines.isEmpty:
            let index = Int.random(in: 0..<lines.count, using: &rng)
            guard !lines[index].isEmpty else { return }
            let at = Int.random(in: 0..<lines[index].count, using: &rng)
            let value = [
                UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "e"), 0, 0xC3, UInt8(ascii: ","),
            ].randomElement(using: &rng)!
            note("manifest: line \(index) byte \(at) = \(value)")
            lines[index][at] = value
        case 4:
            let line = Self.badLines.randomElement(using: &rng)!
            let index = Int.random(in: 0...lines.count, using: &rng)
            note("manifest: insert '\(line.prefix(60))' at line \(index)")
            lines.insert(Array(line.utf8), at: index)
        case 5:
            // Numbers changed in place: sizes, counts, format version.
            let index = Int.random(in: 0..<max(1, lines.count), using: &rng)
            guard index < lines.count else { return }
            var text = String(decoding: lines[index], as: UTF8.self)
            guard let range = text.range(of: #"\d+"#, options: .regularExpression) else { return }
            let replacement = Self.weirdNumbers.randomElement(using: &rng)!
            note("manifest: line \(index) number \(text[range]) -> '\(replacement)'")
            text.replaceSubrange(range, with: replacement)
            lines[index] = Array(text.utf8)
        case 6:
            let cut = Int.random(in: 0...body.count, using: &rng)
            note("manifest: cut to \(cut) of \(body.count) bytes")
            body.removeSubrange(cut...)
            lines = [body]
            finalNewline = false
        default:
            note("manifest: emptied")
            lines = []
        }
        body = lines.isEmpty ? [] : Array(lines.joined(separator: [0x0A])) + (finalNewline ? [0x0A] : [])
        var member = Array(bytes[entry.header..<(entry.header + 512)])
        TarLayout.setField(&member, header: 0, offset: 124, width: 12, TarLayout.octal(body.count, width: 12))
        var replacement = member + TarLayout.padding(body)
        if let pax = entry.pax {
            // Keep a pax size record (if any) consistent with the new body.
            let paxSize = TarLayout.number(bytes[(pax + 124)..<(pax + 136)]) ?? 0
            var records = PaxRecords(Array(bytes[(pax + 512)..<min(bytes.count, pax + 512 + paxSize)]))
            for index in records.records.indices where records.records[index].key == "size" {
                records.records[index].value = Array(String(body.count).utf8)
            }
            let paxBody = records.encoded
            replacement =
                TarLayout.header(name: Array("PaxHeader/m".utf8), type: UInt8(ascii: "x"), size: paxBody.count)
                + TarLayout.padding(paxBody) + replacement
            bytes.replaceSubrange(entry.range.lowerBound..<min(bytes.count, entry.range.upperBound), with: replacement)
        } else {
            bytes.replaceSubrange(entry.header..<min(bytes.count, entry.range.upperBound), with: replacement)
        }
    }
}
