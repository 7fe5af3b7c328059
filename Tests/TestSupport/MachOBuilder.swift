// MachOBuilder: Mach-O executables built byte by byte for tests (thin 64-bit, fat), with known field offsets.
import Foundation

/// Builds app executables as a Simulator or device build lays them out: a thin 64-bit little-endian Mach-O
/// file with an `__TEXT` segment (optionally holding an `__entitlements` section) and an optional
/// `LC_CODE_SIGNATURE` pointing at a SuperBlob with an entitlements blob; and fat files of such slices. The
/// `Offset` constants name where each field of a thin file lies, for tests that corrupt one.
public enum MachOBuilder {
    public static let arm64: UInt32 = 0x0100_000C
    public static let x86_64: UInt32 = 0x0100_0007

    /// Byte offsets in a thin file made by `thin`.
    public enum Offset {
        public static let commandCount = 16
        public static let commandsSize = 20
        /// The `__TEXT` segment command's `cmdsize`.
        public static let segmentCommandSize = 36
        /// The segment's `nsects`.
        public static let sectionCount = 32 + 64
        /// The `__entitlements` section's `size` (UInt64) and `offset` (UInt32).
        public static let sectionSize = 32 + 72 + 40
        public static let sectionOffset = 32 + 72 + 48
        /// The code signature command's `dataoff` and `datasize` (after the segment command).
        public static func signatureOffset(withSection: Bool) -> Int { 32 + (withSection ? 152 : 72) + 8 }
    }

    /// An entitlements XML plist granting `groups`.
    public static func entitlements(groups: [String]) -> [UInt8] {
        let plist: [String: Any] = [
            "application-identifier": "FAKETEAMID.com.example", "com.apple.security.application-groups": groups,
        ]
        return Array(try! PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0))
    }

    /// A thin 64-bit Mach-O file: `section` as `__TEXT,__entitlements` (no section when nil), and `signature`
    /// (the bytes of a SuperBlob, see `superBlob`) behind an `LC_CODE_SIGNATURE` (none when nil).
    public static func thin(cpu: UInt32 = arm64, section: [UInt8]? = nil, signature: [UInt8]? = nil) -> [UInt8] {
        let segmentSize = 72 + (section == nil ? 0 : 80)
        let commandsSize = segmentSize + (signature == nil ? 0 : 16)
        let dataStart = 32 + commandsSize
        var bytes: [UInt8] = []
        le32(0xFEED_FACF, &bytes)
        le32(cpu, &bytes)
        le32(0, &bytes)
        le32(2, &bytes)  // MH_EXECUTE
        le32(signature == nil ? 1 : 2, &bytes)
        le32(UInt32(commandsSize), &bytes)
        le32(0, &bytes)
        le32(0, &bytes)
        le32(0x19, &bytes)  // LC_SEGMENT_64
        le32(UInt32(segmentSize), &bytes)
        name("__TEXT", &bytes)
        for _ in 0..<4 { le64(0, &bytes) }  // vmaddr, vmsize, fileoff, filesize
        for _ in 0..<2 { le32(5, &bytes) }  // maxprot, initprot
        le32(section == nil ? 0 : 1, &bytes)
        le32(0, &bytes)
        if let section {
            name("__entitlements", &bytes)
            name("__TEXT", &bytes)
            le64(0, &bytes)
            le64(UInt64(section.count), &bytes)
            le32(UInt32(dataStart), &bytes)
            for _ in 0..<7 { le32(0, &bytes) }  // align, reloff, nreloc, flags, reserved1-3
        }
        if let signature {
            le32(0x1D, &bytes)  // LC_CODE_SIGNATURE
            le32(16, &bytes)
            le32(UInt32(dataStart + (section?.count ?? 0)), &bytes)
            le32(UInt32(signature.count), &bytes)
        }
        bytes += section ?? []
        bytes += signature ?? []
        return bytes
    }

    /// A code signature SuperBlob: an empty code directory (slot 0) and `entitlements` in slot 5.
    public static func superBlob(entitlements: [UInt8]) -> [UInt8] {
        let directory: [UInt8] = [0xFA, 0xDE, 0x0C, 0x02, 0, 0, 0, 8]
        let header = 12 + 2 * 8
        var bytes: [UInt8] = []
        be32(0xFADE_0CC0, &bytes)
        be32(UInt32(header + directory.count + 8 + entitlements.count), &bytes)
        be32(2, &bytes)
        be32(0, &bytes)
        be32(UInt32(header), &bytes)
        be32(5, &bytes)
        be32(UInt32(header + directory.count), &bytes)
        bytes += directory
        be32(0xFADE_7171, &bytes)
        be32(UInt32(8 + entitlements.count), &bytes)
        return bytes + entitlements
    }

    /// A fat file of `slices` (cpu type, thin file), 32-bit (`FAT_MAGIC`) or 64-bit (`FAT_MAGIC_64`) table,
    /// each slice at a 16 KiB boundary.
    public static func fat(_ slices: [(cpu: UInt32, bytes: [UInt8])], wide: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        be32(wide ? 0xCAFE_BABF : 0xCAFE_BABE, &bytes)
        be32(UInt32(slices.count), &bytes)
        var offset = 0x4000
        for slice in slices {
            be32(slice.cpu, &bytes)
            be32(0, &bytes)
            if wide {
                be64(UInt64(offset), &bytes)
                be64(UInt64(slice.bytes.count), &bytes)
                be32(14, &bytes)
                be32(0, &bytes)
            } else {
                be32(UInt32(offset), &bytes)
                be32(UInt32(slice.bytes.count), &bytes)
                be32(14, &bytes)
            }
            offset += (slice.bytes.count + 0x3FFF) / 0x4000 * 0x4000
        }
        for slice in slices {
            bytes += [UInt8](repeating: 0, count: (bytes.count + 0x3FFF) / 0x4000 * 0x4000 - bytes.count)
            bytes += slice.bytes
        }
        return bytes
    }

    /// Writes `value` little-endian at `offset` of `bytes` (for corrupting one field).
    public static func put32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    public static func put64(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// Writes `value` big-endian at `offset` of `bytes`.
    public static func putBig32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (3 - index))) }
    }

    public static func putBig64(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (7 - index))) }
    }

    static func le32(_ value: UInt32, _ bytes: inout [UInt8]) {
        for index in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    static func le64(_ value: UInt64, _ bytes: inout [UInt8]) {
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    static func be32(_ value: UInt32, _ bytes: inout [UInt8]) {
        for index in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * (3 - index)))) }
    }

    static func be64(_ value: UInt64, _ bytes: inout [UInt8]) {
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * (7 - index)))) }
    }

    static func name(_ text: String, _ bytes: inout [UInt8]) {
        bytes += Array(text.utf8) + [UInt8](repeating: 0, count: 16 - text.utf8.count)
    }
}
