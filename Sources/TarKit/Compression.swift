// Compression: the archive's compression filter, chosen by --compression or the archive's extension.

/// How the tar stream is compressed.
public enum Compression: String, CaseIterable, Sendable {
    case none, gzip, zstd, xz

    /// The compression an archive name implies: `.tar.gz`/`.tgz` gzip, `.tar.zst`/`.tzst` zstd,
    /// `.tar.xz`/`.txz` xz; anything else (`.tar` included) none.
    public static func implied(byName name: String) -> Compression {
        let lower = name.lowercased()
        if lower.hasSuffix(".tar.gz") || lower.hasSuffix(".tgz") { return .gzip }
        if lower.hasSuffix(".tar.zst") || lower.hasSuffix(".tzst") || lower.hasSuffix(".tar.zstd") { return .zstd }
        if lower.hasSuffix(".tar.xz") || lower.hasSuffix(".txz") { return .xz }
        return .none
    }

    /// The compression levels the filter accepts (nil: no levels, i.e. `none`). zstd stops at 19 and xz at 8: above
    /// them the decoder needs a window over 32 MiB, more than devicectl's reader accepts (`DecoderWindowCheck`,
    /// `LzmaDecoder`).
    public var levels: ClosedRange<Int>? {
        switch self {
        case .none: nil
        case .gzip: 1...9
        case .zstd: 1...19
        case .xz: 0...8
        }
    }
}
