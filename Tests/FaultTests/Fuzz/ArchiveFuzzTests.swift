// ArchiveFuzzTests: the archive fuzzer with a fixed seed (CI), and the mutator's own determinism.
// Long runs: `make fuzz N=50000 SEED=7` (see FuzzConfig for the FUZZ_* variables).
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct ArchiveFuzzTests {
    @Test func mutatedArchivesFailCleanlyOrRestoreExactly() throws {
        let config = FuzzConfig.fromEnvironment()
        let fuzzer = try ArchiveFuzzer(config: config)
        let summary = try fuzzer.run { FuzzWatchdog.report($0) }
        FuzzCases.report(summary, config, name: "", describe: ArchiveFuzzer.describe, suite: "ArchiveFuzzTests")
        // The run must reach both outcomes, or the mutations are too weak (or too strong) to test anything.
        if config.only == nil && config.cases >= 1000 {
            #expect(summary.cleanFailures > config.cases / 2)
            #expect(summary.verifiedRestores + summary.unverifiedRestores > 0)
        }
    }

    @Test func theSameSeedGivesTheSameMutations() throws {
        let input =
            TarLayout.header(name: Array("a.txt".utf8), type: UInt8(ascii: "0"), size: 3)
            + TarLayout.padding(Array("abc".utf8))
            + [UInt8](repeating: 0, count: 1024)
        for seed in [UInt64(1), 99, 123_456] {
            var a = ArchiveMutator(seed: seed, donors: [input])
            var b = ArchiveMutator(seed: seed, donors: [input])
            #expect(a.mutate(input, plain: true) == b.mutate(input, plain: true))
            #expect(a.steps == b.steps)
            #expect(!a.steps.isEmpty)
        }
    }

    /// Seeds built twice hold the same bytes (the device's container UUIDs aside, which DeviceKit draws at random):
    /// case N of a seed mutates the same bytes in every run, so `FUZZ_CASE` replays a finding.
    @Test func theSeedsAreTheSameEveryTime() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/a", withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: false)
            let first = try FuzzSeeds.make(in: dir + "/a")
            let second = try FuzzSeeds.make(in: dir + "/b")
            #expect(first.map(\.name) == second.map(\.name))
            for (one, two) in zip(first, second) {
                if one.name == "device.tar" {
                    #expect(one.bytes.count == two.bytes.count, "\(one.name)")
                } else if one.name != "device.tar.zst" {  // compressed random UUIDs: its length may vary
                    #expect(one.bytes == two.bytes, "\(one.name)")
                }
            }
        }
    }

    /// The fuzzer's own pax reader takes whatever a mutation left: a length that ends before its key (seed 6120631
    /// crashed the test process on "Range requires lowerBound <= upperBound" once the seeds were pinned), or past
    /// the body, ends the records.
    @Test func paxRecordsStopAtALengthThatIsNotOne() {
        #expect(PaxRecords(Array("3 size=5\n".utf8)).records.isEmpty)
        #expect(PaxRecords(Array("1 x\n".utf8)).records.isEmpty)
        #expect(PaxRecords(Array("9 size=5\n40 path=a\n".utf8)).value("size") == "5")
        #expect(PaxRecords(Array("9 size=5\n4 path=a\n".utf8)).records.count == 1)
    }

    @Test func layoutFindsEveryMemberOfABackup() throws {
        try withTemporaryDirectory { dir in
            let seeds = try FuzzSeeds.make(in: dir)
            let mixed = try #require(seeds.first { $0.name == "mixed.tar" })
            let layout = TarLayout(mixed.bytes)
            let names = layout.entries.map { String(decoding: $0.name, as: UTF8.self) }
            #expect(names.contains("a.txt"))
            #expect(names.last == ".devicectl-manifest.jsonl")
            #expect(layout.manifest != nil)
            #expect(layout.entries.contains { $0.pax != nil })
            #expect(layout.entries.last!.range.upperBound == layout.trailer)
            #expect(mixed.bytes[layout.trailer...].allSatisfy { $0 == 0 })
            let gnu = try #require(seeds.first { $0.name == "gnu.tar" })
            #expect(TarLayout(gnu.bytes).entries.contains { $0.type == UInt8(ascii: "S") }, "GNU sparse member")
        }
    }
}
