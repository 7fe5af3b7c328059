// ListTests: `ArchiveListing` yields every member with its metadata and the manifest summary.
import BackupKit
import DeviceKit
import Foundation
import Glibc
import TarKit
import TestSupport
import Testing

@Suite struct ListTests {
    @Test func membersAndSummary() throws {
        try withTemporaryDirectory { base in
            let app = Manifest.App(
                bundleId: "com.example.news", name: "News", groups: ["group.com.example.news"],
                widget: Manifest.WidgetSettings(NudgeSettings(appName: "News")))
            let bytes = TarBuilder.archive(RestoreTests.members, apps: [app], widgets: ["com.example.news"])
            try Data(bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var seen: [(String, ArchiveReader.Kind, UInt32, Int64, Int32)] = []
            let summary = try ArchiveListing.list(archive: base + "/a.tar") { member in
                seen.append((member.path, member.kind, member.permissions, member.size, member.mtimeNanoseconds))
            }
            #expect(summary.members == UInt64(RestoreTests.members.count + 1))
            #expect(seen.last?.0 == Manifest.memberName)
            #expect(
                seen.contains {
                    $0.0 == "Library/Preferences/a.plist" && $0.1 == .regular && $0.2 == 0o600 && $0.3 == 6 && $0.4 == 1
                })
            #expect(seen.contains { $0.0 == "Library/link" && $0.1 == .symlink })
            #expect(seen.contains { $0.0 == "Library/Preferences/a-again" && $0.1 == .hardLink })
            #expect(seen.contains { $0.0 == "Documents/" && $0.1 == .directory && $0.2 == 0o1777 })
            #expect(summary.header?.apps == [app])
            #expect(summary.header?.widgets.map(\.app) == ["com.example.news"])
            #expect(summary.header?.source.udid == "SOURCE-UDID")
            #expect(summary.totals?.files == 5)
            #expect(summary.manifestProblem == nil)
        }
    }

    /// A second member named as the manifest is not read as one: list names the first manifest's problem, as
    /// verify does (list once named the second's).
    @Test func aSecondManifestMemberIsNotReadAsTheManifest() throws {
        try withTemporaryDirectory { base in
            var builder = TarBuilder()
            for member in RestoreTests.members { builder.add(member) }
            let garbage = Array("garbage\n".utf8)
            builder.header(name: Array(Manifest.memberName.utf8), type: UInt8(ascii: "0"), size: garbage.count)
            builder.data(garbage)
            builder.manifest()
            builder.end()
            let scratch = try RestoreScratch(base: base)
            try scratch.write(builder.bytes)
            let summary = try ArchiveListing.list(archive: scratch.archive) { _ in }
            let report = try ArchiveVerification.verify(archive: scratch.archive)
            let problem = try #require(summary.manifestProblem)
            #expect(problem.contains("line 1"), "\(problem)")
            #expect(report.problems.contains { $0.contains(problem) }, "\(report.problems)")
            #expect(summary.header == nil)
        }
    }

    /// list reads the manifest by restore's rules (ManifestCheck): what restore accepts (blank lines before the
    /// header, issue 13 finding 9: list refused them) list reads, and what restore refuses list names.
    @Test(arguments: [
        ("blank lines before the header", Array("\n \n\t\r\n".utf8), [UInt8](), nil),
        ("a line of an unknown kind", [], Array("{\"kind\":\"later\"}\n".utf8), "unknown kind 'later'"),
    ] as [(String, [UInt8], [UInt8], String?)])
    func listAcceptsAndRefusesTheManifestsRestoreDoes(
        _ what: String, _ leading: [UInt8], _ beforeTotals: [UInt8], _ refusal: String?
    ) throws {
        try withTemporaryDirectory { base in
            var builder = TarBuilder()
            for member in RestoreTests.members { builder.add(member) }
            builder.manifest(leading: leading, beforeTotals: beforeTotals)
            builder.end()
            let scratch = try RestoreScratch(base: base)
            try scratch.write(builder.bytes)
            let summary = try ArchiveListing.list(archive: scratch.archive) { _ in }
            let report = try ArchiveVerification.verify(archive: scratch.archive)
            let restored = Result { try scratch.restore() }
            if let refusal {
                #expect(summary.manifestProblem?.contains(refusal) == true, "\(what): \(String(describing: summary))")
                #expect(report.problems.contains { $0.contains(refusal) }, "\(what): \(report.problems)")
                #expect(throws: RestoreError.self) { try restored.get() }
            } else {
                #expect(summary.manifestProblem == nil, "\(what): \(summary.manifestProblem ?? "")")
                #expect(summary.header?.source.udid == "SOURCE-UDID")
                #expect(report.isValid, "\(what): \(report.problems)")
                #expect(try restored.get().verified)
            }
        }
    }

    @Test func damagedArchiveThrowsAfterListingWhatCameBefore() throws {
        try withTemporaryDirectory { base in
            var bytes = TarBuilder.archive(RestoreTests.members)
            bytes[512 * 6 + 100] ^= 0xFF  // a header in the middle
            try Data(bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var count = 0
            #expect(throws: ArchiveReaderError.self) {
                try ArchiveListing.list(archive: base + "/a.tar") { _ in count += 1 }
            }
            #expect(count > 0)
        }
    }
    /// The members come to the caller in archive order however many batches the reading thread hands over (1,000
    /// members, batches of 256), the manifest's summary with them.
    @Test func manyMembersComeInArchiveOrder() throws {
        try withTemporaryDirectory { base in
            let names = (0..<1_000).map { "Documents/f\($0)" }
            var builder = TarBuilder()
            builder.add(.directory("Documents", mode: 0o755))
            for (index, name) in names.enumerated() { builder.add(.file(name, Array("\(index)".utf8))) }
            builder.manifest()
            builder.end()
            try Data(builder.bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var seen: [String] = []
            let summary = try ArchiveListing.list(archive: base + "/a.tar") { seen.append($0.path) }
            #expect(seen == ["Documents/"] + names + [Manifest.memberName])
            #expect(summary.members == 1_002)
            #expect(summary.totals?.files == 1_000)
            #expect(summary.manifestProblem == nil)
        }
    }

    /// A caller that fails (its output closed) stops the listing there: its error comes back, not the reader's,
    /// and no member is handed over after it.
    @Test func aFailingCallerStopsTheReading() throws {
        struct Stop: Error {}
        try withTemporaryDirectory { base in
            var builder = TarBuilder()
            builder.add(.directory("Documents", mode: 0o755))
            for index in 0..<1_000 { builder.add(.file("Documents/f\(index)", [])) }
            builder.manifest()
            builder.end()
            try Data(builder.bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var count = 0
            #expect(throws: Stop.self) {
                try ArchiveListing.list(archive: base + "/a.tar") { _ in
                    count += 1
                    if count == 300 { throw Stop() }
                }
            }
            #expect(count == 300)
        }
    }
    /// Members read from an input that then stalls (a pipe whose writer sends nothing more) reach the caller
    /// without waiting for more input, and a caller that fails then stops the listing at once, though the input
    /// never ends. Waits on observable states with deadlines; the writer is closed at the end whatever happened.
    @Test func aStalledInputShowsItsMembersAndACallerCanStopIt() throws {
        struct Stop: Error {}
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var names: [String] = []
            var outcome: String?
            func add(_ name: String) -> Int { lock.withLock { names.append(name); return names.count } }
            func finish(_ text: String) { lock.withLock { outcome = text } }
            var state: (count: Int, outcome: String?) { lock.withLock { (names.count, outcome) } }
        }
        try withTemporaryDirectory { base in
            var builder = TarBuilder()
            builder.add(.directory("Documents", mode: 0o755))
            for index in 0..<10 { builder.add(.file("Documents/f\(index)", Array("\(index)".utf8))) }
            let fifo = base + "/stalled"
            #expect(mkfifo(fifo, 0o600) == 0)
            let writer = open(fifo, O_RDWR)  // holds the pipe open: the reader never sees its end
            try #require(writer >= 0)
            defer { close(writer) }
            let prefix = builder.bytes
            #expect(prefix.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == prefix.count)
            let seen = Seen()
            let thread = Thread {
                do {
                    _ = try ArchiveListing.list(archive: fifo) { member in
                        if seen.add(member.path) == 12 { throw Stop() }
                    }
                    seen.finish("returned")
                } catch is Stop {
                    seen.finish("stopped")
                } catch {
                    seen.finish("\(error)")
                }
            }
            thread.start()
            let deadline = Date().addingTimeInterval(20)
            while seen.state.count < 11 && Date() < deadline { usleep(10_000) }
            #expect(seen.state.count == 11, "members shown while the input stalls")
            #expect(seen.state.outcome == nil)
            // One more member, then the caller fails: the listing must end while the pipe stays open.
            builder = TarBuilder()
            builder.add(.file("Documents/last", []))
            let more = builder.bytes
            #expect(more.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == more.count)
            while seen.state.outcome == nil && Date() < deadline { usleep(10_000) }
            #expect(seen.state.outcome == "stopped")
        }
    }
    /// Members before a long member reach the caller while that member's data is still being read (the input
    /// never pauses, so no wait for input hands them over): a writer thread feeds a 1 GiB member's data until the
    /// caller has seen the three before it and its header (or the 1 GiB or a deadline ends it); then it stops and
    /// the listing fails (truncated).
    @Test func membersBeforeALongMemberComeWhileItsDataIsRead() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            var ended = false
            var seenWhileFlowing = false
            func add() { lock.withLock { count += 1 } }
            func end() { lock.withLock { ended = true } }
            func flowStopped(early: Bool) { lock.withLock { seenWhileFlowing = early } }
            var state: (count: Int, ended: Bool, early: Bool) { lock.withLock { (count, ended, seenWhileFlowing) } }
        }
        try withTemporaryDirectory { base in
            var builder = TarBuilder()
            builder.add(.directory("Documents", mode: 0o755))
            for index in 0..<2 { builder.add(.file("Documents/f\(index)", Array("\(index)".utf8))) }
            builder.header(name: Array("Documents/long".utf8), type: UInt8(ascii: "0"), size: 1 << 30)
            let fifo = base + "/flowing"
            #expect(mkfifo(fifo, 0o600) == 0)
            let writer = open(fifo, O_RDWR)
            try #require(writer >= 0)
            let seen = Seen()
            let prefix = builder.bytes
            let feeder = Thread {
                _ = prefix.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
                let deadline = Date().addingTimeInterval(20)
                var fed = 0
                // Until the caller has the three members and the long one's header; the 1 GiB would be the end.
                while seen.state.count < 4 && Date() < deadline && fed < (1 << 30) - chunk.count {
                    fed += chunk.withUnsafeBytes { max(0, write(writer, $0.baseAddress, $0.count)) }
                }
                seen.flowStopped(early: seen.state.count == 4)
                close(writer)
            }
            let lister = Thread {
                _ = try? ArchiveListing.list(archive: fifo) { _ in seen.add() }
                seen.end()
            }
            lister.start()
            feeder.start()
            let deadline = Date().addingTimeInterval(30)
            while !seen.state.ended && Date() < deadline { usleep(10_000) }
            #expect(seen.state.ended)
            #expect(seen.state.count == 4)
            #expect(seen.state.early, "the members before the long one (and its header) reach the caller while its data flows")
        }
    }
}



