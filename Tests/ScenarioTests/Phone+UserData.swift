// Phone+UserData: what a real app keeps in its App Group besides the marker: files of several kinds (text,
// binary, nested, private, a symlink, a user xattr, old mtimes) and shared defaults of every type.
import Foundation
import Glibc
import TestSupport
import Testing

extension Phone {
    /// Fills `app`'s App Group with user data (files written directly, defaults through `defaults write`).
    func addGroupData(_ app: App) throws {
        let group = try #require(app.group)
        for (key, type, value) in [
            ("lastArticle", "string", "2026-11-30/markets-close"), ("unreadCount", "int", "7"),
            ("fontScale", "float", "1.25"), ("darkMode", "bool", "true"),
        ] {
            try writeDefault(group, key, type, value)
        }
        let container = try groupContainer(group)
        try write("\(container)/Documents/articles.json", Data(#"{"saved":["a1","b2","c3"]}"#.utf8))
        var random = SystemRandomNumberGenerator()
        try write(
            "\(container)/Library/Application Support/Offline/cache.db", Data((0..<65_536).map { _ in random.next() }))
        try write("\(container)/Library/Application Support/Offline/empty", Data(), mode: 0o600)
        try write("\(container)/Documents/images/logo é.png", Data(repeating: 0x89, count: 3_000), mode: 0o640)
        try FileManager.default.createSymbolicLink(
            atPath: "\(container)/Documents/latest", withDestinationPath: "articles.json")
        let tagged = "\(container)/Documents/articles.json"
        let setfattr = try Shell.run("setfattr", ["-n", "user.com.example.source", "-v", "feed-7", tagged])
        try #require(setfattr.status == 0, "setfattr \(tagged): \(setfattr.stderr)")
        var times = [
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
        ]
        try #require(utimensat(AT_FDCWD, "\(container)/Documents/images/logo é.png", &times, 0) == 0)
    }

    private func write(_ path: String, _ data: Data, mode: Int = 0o644) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, mode_t(mode)) == 0, "chmod \(path)")
    }
}
