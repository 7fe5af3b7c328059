// ManifestCheck: compares the manifest, as it streams out of the archive, with what was read before it.
//
// The i-th file line must describe the i-th file member (path, size, SHA-256); counts and the optional
// members digest must agree. Mismatches are aligned with one line of lookahead on each side, so a single
// missing or extra member is reported as such instead of shifting every later comparison.
//
// Restore, verify and list all read a manifest through this one class (list without the comparisons with the
// members), so they accept and refuse the same manifests: blank lines, order, kinds, the header's checks.
import Glibc
import TarKit

/// Checks one manifest against the members read before it.
final class ManifestCheck {
    /// What the archive held before the manifest.
    struct Observed {
        var counts = EntryCounts()
        /// Members before the manifest and their digest.
        var memberCount: UInt64 = 0
        var memberDigest: String?
    }

    /// The outcome: the manifest's header and totals, and every problem found.
    struct Outcome {
        let header: Manifest.Header
        let totals: Manifest.Totals
        let problems: [String]
        let problemCount: Int
        /// Whether the manifest carried a members line (so metadata was verified too).
        let checkedMembers: Bool
    }

    static let maxLine = 16 << 20
    private static let alteredProblem =
        "the manifest's own bytes differ from its members line's manifestSha256 (the manifest was altered)"
    /// The files read before the manifest, or nil when only the manifest itself is read (list).
    private let log: DigestLog.Reader?
    private let observed: Observed?
    private let problemLimit: Int
    private var splitter = LineSplitter(maxLine: ManifestCheck.maxLine)
    private var lineNumber = 0
    /// The header, once its line was read and validated (the manifest's first line).
    private(set) var header: Manifest.Header?
    private var totals: Manifest.Totals?
    private var members: Manifest.Members?
    /// Where the manifest's grammar stands, tested first for every line: the header, then file lines up to the
    /// totals, then the members line, then nothing. (Testing the optionals above instead read each out of this
    /// class: a copy of the header, a retain and a release of each of its strings and arrays, every line.)
    private enum Section { case header, files, afterTotals, end }
    private var section = Section.header
    private var pending: (path: [UInt8], size: UInt64, digest: [UInt8])?
    private var fileLines: UInt64 = 0
    private var fileBytes: UInt64 = 0
    /// Hashes the manifest's bytes before its last line (what the members line's `manifestSha256` covers) while the
    /// lines are checked; nil when `finish(manifestDigest:)` brings the digest (`digestSupplied`).
    private let hashing: ManifestHashingThread?
    /// The members line's `manifestSha256`, compared with the digest by `finish`.
    private var expectedDigest: String?
    private(set) var problems: [String] = []
    private(set) var problemCount = 0

    init(log: DigestLog.Reader, observed: Observed, problemLimit: Int = 1000) throws {
        hashing = try ManifestHashingThread()
        self.log = log
        self.observed = observed
        self.problemLimit = problemLimit
    }

    /// Reads a manifest by restore's rules without comparing it with the members (`list`): the outcome's
    /// problems are only the manifest's own (its totals against its file lines, its members line's digest).
    /// `digestSupplied`: the manifest's bytes are not hashed here; `finish(manifestDigest:)` brings their digest.
    init(problemLimit: Int = 1000, digestSupplied: Bool = false) throws {
        hashing = digestSupplied ? nil : try ManifestHashingThread()
        log = nil
        observed = nil
        self.problemLimit = problemLimit
    }

    /// Feeds a block of the manifest member's data.
    func feed(_ block: UnsafeRawBufferPointer) throws {
        hashing?.feed(block)
        try splitter.feed(block) { try line($0) }
    }

    /// Ends the manifest: compares what is left and returns the outcome. `manifestDigest`: with `digestSupplied`,
    /// the digest of the bytes before the last line (`ManifestPrefixDigest`; nil for none), which the members
    /// line, the last, covers. (The digest is compared first: where the members line stood in the problems.)
    func finish(manifestDigest supplied: String? = nil) throws -> Outcome {
        try splitter.finish { try line($0) }
        let digest = hashing?.finish() ?? supplied
        if let expectedDigest, digest != expectedDigest.lowercased() {
            problem(Self.alteredProblem)
        }
        if let last = pending {
            pending = nil
            try compare(last, next: nil)
        }
        while let log, let extra = try log.peek() {
            problem("extra member '\(text(extra.path))': in the archive but not in the manifest")
            try log.advance()
        }
        guard let header else { throw RestoreError.badManifest(.malformed("empty manifest (no header line)")) }
        guard let totals else {
            throw RestoreError.badManifest(.malformed("no totals line: the manifest is incomplete"))
        }
        if fileLines != totals.files || fileBytes != totals.bytes {
            problem(
                "the manifest lists \(fileLines) files (\(fileBytes) bytes) "
                    + "but its totals say \(totals.files) (\(totals.bytes) bytes)"
            )
        }
        let seen = (observed ?? Observed()).counts
        let counts: [(String, UInt64, UInt64)] = [
            ("files", seen.files, totals.files), ("bytes", seen.bytes, totals.bytes),
            ("directories", seen.directories, totals.directories), ("symlinks", seen.symlinks, totals.symlinks),
            ("hard links", seen.hardlinks, totals.hardlinks),
        ]
        for (what, archive, manifest) in counts where observed != nil && archive != manifest {
            problem("the archive holds \(archive) \(what) but the manifest's totals say \(manifest)")
        }
        if let members, let observed {
            if observed.memberCount != members.count {
                problem("the archive has \(observed.memberCount) members but the manifest covers \(members.count)")
            } else if observed.memberDigest != members.sha256.lowercased() {
                problem(
                    "member metadata (names, types, modes, owners, times, link targets or xattrs) "
                        + "differs from the manifest's members digest"
                )
            }
        }
        return Outcome(
            header: header, totals: totals, problems: problems, problemCount: problemCount,
            checkedMembers: members != nil)
    }

    // MARK: - Lines

    private func line(_ bytes: ArraySlice<UInt8>) throws {
        lineNumber += 1
        if section == .end {
            throw RestoreError.badManifest(
                .malformed("line \(lineNumber): a line after the members line (it must be last)"))
        }
        // Most lines are file lines in devicectl's own spelling, where file lines belong: read in place.
        if section == .files,
            try ManifestLine.withDevicectlFileFields(bytes, { try ownFileLine(path: $0, size: $1, digest: $2) }) != nil
        {
            return
        }
        // A blank line (only spaces, tabs, CRs) starts with one of them: no need to scan every line for it.
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x0D || byte == 0x09 }
        if bytes.first.map(blank) ?? true, bytes.allSatisfy(blank) { return }
        let parsed: ManifestLine
        do {
            parsed = try ManifestLine.parse(bytes)
        } catch {
            throw RestoreError.badManifest(.unparsable(line: lineNumber, error))
        }
        if section == .header {
            guard case .header(let value) = parsed else {
                throw RestoreError.badManifest(.malformed("line \(lineNumber) is not the header"))
            }
            guard value.format == Manifest.format else {
                throw RestoreError.badManifest(.malformed("format '\(value.format)' is not \(Manifest.format)"))
            }
            guard value.formatVersion == Manifest.formatVersion else {
                throw RestoreError.badManifest(.malformed(
                    "format version \(value.formatVersion) is not supported "
                        + "(this devicectl reads \(Manifest.formatVersion))"
                ))
            }
            try checkHeader(value)
            header = value
            section = .files
            return
        }
        switch parsed {
        case .header: throw RestoreError.badManifest(.malformed("line \(lineNumber): a second header"))
        case .file(let path, let size, let digest):
            guard section == .files else {
                throw RestoreError.badManifest(.malformed("line \(lineNumber): a file line after the totals"))
            }
            try fileLine((path, size, digest))
        case .members(let value):
            guard section == .afterTotals else {
                throw RestoreError.badManifest(
                    .malformed("line \(lineNumber): the members line comes before the totals"))
            }
            expectedDigest = value.manifestSha256
            members = value
            section = .end
        case .totals(let value):
            guard section == .files else {
                throw RestoreError.badManifest(.malformed("line \(lineNumber): a second totals line"))
            }
            totals = value
            section = .afterTotals
        case .unknown(let kind):
            // Format version 1 has exactly these kinds; anything else is damage (or a newer format, which
            // must bump formatVersion), and ignoring it would let a flipped byte hide the members line.
            throw RestoreError.badManifest(.malformed("line \(lineNumber): unknown kind '\(kind)'"))
        }
    }

    /// A file line read in place: counted, and consumed with the next logged file when that is exactly it and no
    /// earlier line waits (almost every line: nothing is copied); otherwise checked as `fileLine` checks it.
    private func ownFileLine(
        path: UnsafeBufferPointer<UInt8>, size: UInt64, digest: UnsafeBufferPointer<UInt8>
    ) throws {
        if let log, pending == nil, try log.advance(ifExactly: path, size: size, digest: digest) {
            fileLines += 1
            fileBytes &+= size
            return
        }
        try fileLine((Array(path), size, Array(digest)))
    }

    /// A file line: counted, and compared with the files read before the manifest (one line behind, for the
    /// lookahead), when there are any.
    private func fileLine(_ current: (path: [UInt8], size: UInt64, digest: [UInt8])) throws {
        fileLines += 1
        fileBytes &+= current.size
        guard log != nil else { return }
        if let previous = pending { try compare(previous, next: current) }
        pending = current
    }

    /// THE single place a manifest header's values are checked, for restore, verify and list alike (each reads
    /// the manifest through this class). Header field validation (ids, names, caps, widgets for unlisted apps)
    /// belongs here: throw `RestoreError.badManifest` naming the field, or call `problem` for a mismatch.
    /// The header's values and caps (`Manifest.Header.validate`): the one place restore, verify and list check them.
    private func checkHeader(_ header: Manifest.Header) throws(RestoreError) {
        do {
            try header.validate()
        } catch {
            throw RestoreError.badManifest(.header(error))
        }
    }

    /// Compares manifest line `expected` with the next logged file, using one line of lookahead each side.
    private func compare(
        _ expected: (path: [UInt8], size: UInt64, digest: [UInt8]),
        next: (path: [UInt8], size: UInt64, digest: [UInt8])?
    ) throws {
        guard let log else { return }
        // The next logged file, exactly as the line says: consumed without a record built.
        let exact = try expected.path.withUnsafeBufferPointer { path in
            try expected.digest.withUnsafeBufferPointer { digest in
                try log.advance(ifExactly: path, size: expected.size, digest: digest)
            }
        }
        if exact { return }
        // Logged paths are normalised member names, and devicectl writes the manifest's the same way: compare
        // as written first, and normalise only when that fails.
        if let actual = try log.peek(), Self.same(actual.path, expected.path) {
            try matched(actual, expected)
            return
        }
        let expected = (path: MemberPath.normalized(expected.path), size: expected.size, digest: expected.digest)
        let next = next.map { (path: MemberPath.normalized($0.path), size: $0.size, digest: $0.digest) }
        while true {
            guard let actual = try log.peek() else {
                problem("missing member '\(text(expected.path))': in the manifest but not in the archive")
                return
            }
            if Self.same(actual.path, expected.path) {
                try matched(actual, expected)
                return
            }
            if let after = try log.peek(1), after.path == expected.path {
                problem("extra member '\(text(actual.path))': in the archive but not in the manifest")
                try log.advance()
                continue
            }
            if let next, next.path == actual.path {
                problem("missing member '\(text(expected.path))': in the manifest but not in the archive")
                return
            }
            problem("member '\(text(actual.path))' is where the manifest lists '\(text(expected.path))'")
            try log.advance()
            return
        }
    }

    /// The logged file `actual` is the one manifest line `expected` names: consumes it, compares size and digest.
    private func matched(_ actual: DigestLog.Record, _ expected: (path: [UInt8], size: UInt64, digest: [UInt8])) throws {
        try log?.advance()
        if actual.size != expected.size {
            problem(
                "size mismatch for '\(text(actual.path))': \(actual.size) bytes in the archive, "
                    + "\(expected.size) in the manifest"
            )
        } else if !Self.same(actual.digest, expected.digest) {
            problem("SHA-256 mismatch for '\(text(actual.path))': the data differs from what the manifest recorded")
        }
    }

    private func problem(_ message: String) {
        problemCount += 1
        if problems.count < problemLimit { problems.append(message) }
    }

    /// Whether two byte strings are equal (memcmp: a manifest compares tens of thousands of paths and digests).
    private static func same(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count else { return false }
        return first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

extension MemberPath {
    /// `raw` normalised like a member name, or unchanged when it is not a valid one.
    static func normalized(_ raw: [UInt8]) -> [UInt8] {
        (try? MemberPath(raw).bytes) ?? raw
    }
}
