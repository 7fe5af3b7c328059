// ExecutableEntitlements: the entitlements plist a Mach-O app executable carries (Simulator and device builds).

/// Finds the entitlements XML plist in an app executable, as a Simulator build carries it (the
/// `__TEXT,__entitlements` section) or a signed device build does (the code signature's SuperBlob, slot 5, a
/// blob with magic `0xfade7171`). Reads thin 64-bit little-endian Mach-O files and fat files (`FAT_MAGIC`,
/// `FAT_MAGIC_64`; the arm64 slice, else the x86_64 one). The file is hostile: it is read in bounded parts
/// through `read`, and every count, offset and size is checked for overflow and against the file (and the
/// slice, the load commands, the signature) before it is used; anything that does not fit is an
/// `ExecutableFormatError`. The section wins over the signature when both are present.
enum ExecutableEntitlements {
    /// The largest executable read (its size is checked before anything is read).
    static let fileLimit: UInt64 = 64 << 20
    /// The largest entitlements plist read (real ones are well under 4 KiB).
    static let entitlementsLimit: UInt64 = 1 << 20
    /// The most load-command bytes read (real apps have tens of KiB).
    static let loadCommandsLimit: UInt64 = 4 << 20
    /// The most architectures a fat file may list, and the most blobs a code signature may index.
    static let maxArchitectures: UInt64 = 64
    static let maxBlobs: UInt64 = 256

    /// Reads `count` bytes at `offset` of the file; only called with ranges already checked against it.
    typealias Reader = (_ offset: UInt64, _ count: Int) throws -> [UInt8]

    /// A range of the file: the file, a fat file's slice, a code signature; `name` says which, in messages.
    struct Window {
        let base: UInt64
        let size: UInt64
        let name: String
    }

    static let cpuARM64: UInt32 = 0x0100_000C
    static let cpuX86_64: UInt32 = 0x0100_0007
    static let segment64: UInt32 = 0x19
    static let codeSignature: UInt32 = 0x1D
    static let superBlobMagic: UInt32 = 0xFADE_0CC0
    static let entitlementsBlobMagic: UInt32 = 0xFADE_7171
    static let entitlementsSlot: UInt32 = 5

    /// The entitlements plist's bytes in the `size`-byte file `read` reads; nil when it has none.
    static func entitlements(size: UInt64, read: Reader) throws -> [UInt8]? {
        guard size <= fileLimit else {
            throw ExecutableFormatError("\(size) bytes, more than the \(fileLimit >> 20) MiB read")
        }
        let file = Window(base: 0, size: size, name: "the file")
        let magic = uint32(try bytes(file, at: 0, count: 4, what: "the file header", read), at: 0, bigEndian: true)
        switch magic {
        case 0xCAFE_BABE, 0xCAFE_BABF:
            guard let slice = try fatSlice(file, wide: magic == 0xCAFE_BABF, read) else { return nil }
            return try thinEntitlements(slice, read)
        case 0xCFFA_EDFE: return try thinEntitlements(file, read)
        case 0xCEFA_EDFE, 0xFEED_FACE: throw ExecutableFormatError("a 32-bit Mach-O file (only 64-bit is read)")
        case 0xFEED_FACF: throw ExecutableFormatError("a big-endian Mach-O file (only little-endian is read)")
        default: throw ExecutableFormatError("not a Mach-O file")
        }
    }

    /// The arm64 slice of a fat file, else its x86_64 one; nil when it has neither. Every slice listed must
    /// lie inside the file.
    static func fatSlice(_ file: Window, wide: Bool, _ read: Reader) throws -> Window? {
        let header = try bytes(file, at: 4, count: 4, what: "the fat header", read)
        let count = UInt64(uint32(header, at: 0, bigEndian: true))
        guard count <= maxArchitectures else {
            throw ExecutableFormatError("a fat header listing \(count) architectures, more than \(maxArchitectures)")
        }
        let entrySize: UInt64 = wide ? 32 : 20
        let table = try bytes(file, at: 8, count: count * entrySize, what: "the fat architecture table", read)
        var slices: [UInt32: Window] = [:]
        for index in 0..<Int(count) {
            let entry = index * Int(entrySize)
            let cpu = uint32(table, at: entry, bigEndian: true)
            let offset = wide ? uint64(table, at: entry + 8, bigEndian: true)
                : UInt64(uint32(table, at: entry + 8, bigEndian: true))
            let size = wide ? uint64(table, at: entry + 16, bigEndian: true)
                : UInt64(uint32(table, at: entry + 12, bigEndian: true))
            let slice = try window(
                in: file, at: offset, size: size, what: "fat architecture \(index)", named: "its slice \(index)")
            if slices[cpu] == nil { slices[cpu] = slice }
        }
        return slices[cpuARM64] ?? slices[cpuX86_64]
    }

    /// The entitlements of the thin 64-bit little-endian Mach-O file in `slice`.
    static func thinEntitlements(_ slice: Window, _ read: Reader) throws -> [UInt8]? {
        let header = try bytes(slice, at: 0, count: 32, what: "the Mach-O header", read)
        guard uint32(header, at: 0, bigEndian: false) == 0xFEED_FACF else {
            throw ExecutableFormatError("a fat file slice that is not a 64-bit little-endian Mach-O file")
        }
        let commandCount = UInt64(uint32(header, at: 16, bigEndian: false))
        let commandsSize = UInt64(uint32(header, at: 20, bigEndian: false))
        guard commandsSize <= loadCommandsLimit else {
            throw ExecutableFormatError(
                "\(commandsSize) bytes of load commands, more than \(loadCommandsLimit >> 20) MiB")
        }
        guard commandCount * 8 <= commandsSize else {
            throw ExecutableFormatError("\(commandCount) load commands cannot fit in \(commandsSize) bytes")
        }
        let commands = try bytes(slice, at: 32, count: commandsSize, what: "the load commands", read)
        var section: [UInt8]?
        var signature: Window?
        var offset = 0
        for index in 0..<Int(commandCount) {
            guard commands.count - offset >= 8 else {
                throw ExecutableFormatError("load command \(index) lies past the end of the load commands")
            }
            let command = uint32(commands, at: offset, bigEndian: false)
            let size = Int(uint32(commands, at: offset + 4, bigEndian: false))
            guard size >= 8, size % 8 == 0, size <= commands.count - offset else {
                throw ExecutableFormatError(
                    "load command \(index) (\(size) bytes) lies past the end of the load commands")
            }
            let body = Array(commands[offset..<offset + size])
            switch command {
            case segment64:
                if let found = try entitlementsSection(body, index: index, in: slice, read) { section = found }
            case codeSignature:
                guard size >= 16 else { throw ExecutableFormatError("code signature command \(index) is too short") }
                signature = try window(
                    in: slice, at: UInt64(uint32(body, at: 8, bigEndian: false)),
                    size: UInt64(uint32(body, at: 12, bigEndian: false)), what: "the code signature",
                    named: "the code signature")
            default: break
            }
            offset += size
        }
        if let section { return section }
        guard let signature else { return nil }
        return try signatureEntitlements(signature, read)
    }

    /// The `__TEXT,__entitlements` section's bytes if the segment command `body` holds it.
    static func entitlementsSection(_ body: [UInt8], index: Int, in slice: Window, _ read: Reader) throws -> [UInt8]? {
        guard body.count >= 72 else { throw ExecutableFormatError("segment command \(index) is too short") }
        guard name(body, at: 8) == "__TEXT" else { return nil }
        let sections = UInt64(uint32(body, at: 64, bigEndian: false))
        guard 72 + sections * 80 <= UInt64(body.count) else {
            throw ExecutableFormatError("segment command \(index) lists \(sections) sections that do not fit in it")
        }
        for number in 0..<Int(sections) {
            let start = 72 + number * 80
            guard name(body, at: start) == "__entitlements", name(body, at: start + 16) == "__TEXT" else { continue }
            let size = uint64(body, at: start + 40, bigEndian: false)
            let offset = UInt64(uint32(body, at: start + 48, bigEndian: false))
            try checkEntitlementsSize(size)
            return try bytes(slice, at: offset, count: size, what: "the __entitlements section", read)
        }
        return nil
    }

    /// The entitlements blob of the code signature SuperBlob in `signature`; nil when it has none.
    static func signatureEntitlements(_ signature: Window, _ read: Reader) throws -> [UInt8]? {
        let header = try bytes(signature, at: 0, count: 12, what: "the code signature header", read)
        guard uint32(header, at: 0, bigEndian: true) == superBlobMagic else {
            throw ExecutableFormatError("the code signature is not a signature SuperBlob")
        }
        let length = UInt64(uint32(header, at: 4, bigEndian: true))
        let count = UInt64(uint32(header, at: 8, bigEndian: true))
        let blob = try window(
            in: signature, at: 0, size: length, what: "the code signature's SuperBlob", named: "its SuperBlob")
        guard count <= maxBlobs else {
            throw ExecutableFormatError("a code signature indexing \(count) blobs, more than \(maxBlobs)")
        }
        let index = try bytes(blob, at: 12, count: count * 8, what: "the code signature's blob index", read)
        for entry in 0..<Int(count) where uint32(index, at: entry * 8, bigEndian: true) == entitlementsSlot {
            let offset = UInt64(uint32(index, at: entry * 8 + 4, bigEndian: true))
            let head = try bytes(blob, at: offset, count: 8, what: "the entitlements blob header", read)
            guard uint32(head, at: 0, bigEndian: true) == entitlementsBlobMagic else {
                throw ExecutableFormatError(
                    "the code signature's entitlements slot does not hold an entitlements blob")
            }
            let blobLength = UInt64(uint32(head, at: 4, bigEndian: true))
            guard blobLength >= 8 else { throw ExecutableFormatError("an entitlements blob shorter than its header") }
            try checkEntitlementsSize(blobLength - 8)
            let payload = try window(
                in: blob, at: offset, size: blobLength, what: "the entitlements blob", named: "the entitlements blob")
            return try bytes(payload, at: 8, count: blobLength - 8, what: "the entitlements blob", read)
        }
        return nil
    }

    // MARK: - Bounds

    static func checkEntitlementsSize(_ size: UInt64) throws {
        guard size <= entitlementsLimit else {
            throw ExecutableFormatError("\(size) bytes of entitlements, more than \(entitlementsLimit >> 20) MiB")
        }
    }

    /// `size` bytes at `offset` inside `outer`, checked for overflow and against `outer`'s end; `what` names
    /// them in the error, `name` in errors about what lies inside them.
    static func window(
        in outer: Window, at offset: UInt64, size: UInt64, what: String, named name: String = ""
    ) throws -> Window {
        let (end, overflow) = offset.addingReportingOverflow(size)
        guard !overflow, end <= outer.size else {
            throw ExecutableFormatError("\(what) (\(size) bytes at \(offset)) lies past the end of \(outer.name)")
        }
        return Window(base: outer.base + offset, size: size, name: name)
    }

    /// The `count` bytes at `offset` of `outer`, bounds-checked first (`count` is already capped by the caller).
    static func bytes(
        _ outer: Window, at offset: UInt64, count: UInt64, what: String, _ read: Reader
    ) throws -> [UInt8] {
        let inner = try window(in: outer, at: offset, size: count, what: what)
        return try read(inner.base, Int(inner.size))
    }

    static func uint32(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        return bigEndian ? value.byteSwapped : value
    }

    static func uint64(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt64 {
        let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        return bigEndian ? value.byteSwapped : value
    }

    /// The NUL-padded 16-byte name at `offset`.
    static func name(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 16].prefix { $0 != 0 }, as: UTF8.self)
    }
}
