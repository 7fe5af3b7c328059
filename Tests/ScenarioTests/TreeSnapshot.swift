// TreeSnapshot: a listing of a directory tree (type, mode, size, mtime, symlink target, user xattrs and a
// SHA-256 of every file's content), so scenarios can prove that two trees are the same or that one is unchanged.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

struct TreeSnapshot: Equatable, Sendable {
    /// One entry; `digest` is `sha256sum`'s digest of a regular file's bytes.
    struct Entry: Equatable, Sendable, CustomStringConvertible {
        var type: Character  // f, d, l, or ? for anything else
        var mode: UInt32
        var size: Int64
        var mtimeNanoseconds: Int64
        var target: String?
        var xattrs: [String: [UInt8]]
        var digest: String?

        var description: String {
            let attributes = xattrs.keys.sorted().map {
                "\($0)=\(xattrs[$0]!.map { String(format: "%02x", $0) }.joined())"
            }
            return "\(type) \(String(mode, radix: 8)) \(size) mtime=\(mtimeNanoseconds)"
                + (target.map { " -> \($0)" } ?? "") + (digest.map { " sha256=\($0)" } ?? "")
                + (attributes.isEmpty ? "" : " " + attributes.joined(separator: " "))
        }
    }

    /// Entries by path relative to the snapshot's root ("." is the root itself).
    var entries: [String: Entry]

    /// Lists `root` recursively, leaving out the subtrees whose relative paths are in `skipping`.
    init(_ root: String, skipping: Set<String> = []) throws {
        entries = [:]
        var files: [String] = []
        try Self.walk(root, ".", skipping: skipping, into: &entries, files: &files)
        for (path, digest) in try Self.digests(root: root, files) { entries[path]?.digest = digest }
    }

    /// The paths that differ from `other`, each with both sides, sorted (empty when the trees are the same).
    func differences(from other: TreeSnapshot) -> [String] {
        Set(entries.keys).union(other.entries.keys).sorted().compactMap { path in
            let mine = entries[path]
            let theirs = other.entries[path]
            guard mine != theirs else { return nil }
            return "\(path): \(mine.map(\.description) ?? "missing") vs \(theirs.map(\.description) ?? "missing")"
        }
    }

    /// The same listing without the entries `predicate` picks (by relative path).
    func removing(_ predicate: (String) -> Bool) -> TreeSnapshot {
        var copy = self
        copy.entries = entries.filter { !predicate($0.key) }
        return copy
    }

    /// The same listing with the mtimes of the paths `predicate` picks set to 0.
    func ignoringMtimes(of predicate: (String) -> Bool) -> TreeSnapshot {
        var copy = self
        for path in entries.keys where predicate(path) { copy.entries[path]?.mtimeNanoseconds = 0 }
        return copy
    }

    // MARK: - Reading the tree

    private static func walk(
        _ root: String, _ relative: String, skipping: Set<String>, into entries: inout [String: Entry],
        files: inout [String]
    ) throws {
        let path = relative == "." ? root : "\(root)/\(relative)"
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let kind = info.st_mode & S_IFMT
        let type: Character = kind == S_IFREG ? "f" : kind == S_IFDIR ? "d" : kind == S_IFLNK ? "l" : "?"
        entries[relative] = Entry(
            type: type, mode: info.st_mode & 0o7777, size: type == "d" ? 0 : Int64(info.st_size),
            mtimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            target: type == "l" ? try FileManager.default.destinationOfSymbolicLink(atPath: path) : nil,
            xattrs: try userAttributes(path), digest: nil)
        if type == "f" { files.append(relative) }
        guard type == "d" else { return }
        for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
            let child = relative == "." ? name : "\(relative)/\(name)"
            if !skipping.contains(child) { try walk(root, child, skipping: skipping, into: &entries, files: &files) }
        }
    }

    /// The `user.*` extended attributes of `path` (not following a symlink).
    private static func userAttributes(_ path: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in try ExtendedAttributes.names(at: path) where name.hasPrefix("user.") {
            result[name] = try ExtendedAttributes.value(name, at: path)
        }
        return result
    }

    /// `sha256sum` of every file (run once, from `root`, so its output names the relative paths).
    private static func digests(root: String, _ files: [String]) throws -> [String: String] {
        guard !files.isEmpty else { return [:] }
        let result = try Shell.run("sha256sum", ["--"] + files, directory: root)
        try #require(result.status == 0, "sha256sum: \(result.stderr)")
        var digests: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let digest = line.prefix(64)
            digests[String(line.dropFirst(66))] = String(digest)
        }
        return digests
    }
}
