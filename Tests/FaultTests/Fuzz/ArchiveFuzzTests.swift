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
