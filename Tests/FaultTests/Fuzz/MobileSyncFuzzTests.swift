// MobileSyncFuzzTests: the MobileSync fuzzer with a fixed seed (CI), and the mutator's own determinism.
// Long runs: `make fuzz-mobilesync N=5000 SEED=7` (see FuzzConfig for the FUZZ_* variables).
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct MobileSyncFuzzTests {
    @Test func mutatedBackupsFailCleanlyOrRestoreInsideRoot() throws {
        let config = FuzzConfig.fromEnvironment(cases: 300)
        let fuzzer = try MobileSyncFuzzer(config: config)
        let summary = try fuzzer.run { FuzzWatchdog.report($0) }
        FuzzCases.report(summary, config, name: "MobileSync, ", describe: MobileSyncFuzzer.describe, suite: "MobileSyncFuzzTests")
        // The run must reach every outcome, or the mutations are too weak (or too strong) to test anything.
        if config.only == nil && config.cases >= 300 {
            #expect(summary.cleanFailures > config.cases / 4)
            #expect(summary.verifiedRestores > config.cases / 20)
            #expect(summary.unverifiedRestores > 0)
        }
    }

    @Test func theSameSeedGivesTheSameBackup() throws {
        var config = FuzzConfig()
        config.cases = 0
        let fuzzer = try MobileSyncFuzzer(config: config)
        for index in [3, 17, 64] {
            let (seed, steps) = try fuzzer.prepare(index)
            let first = try TreeSnapshot(fuzzer.backup).ignoringMtimes { _ in true }
            let (again, stepsAgain) = try fuzzer.prepare(index)
            #expect(seed.name == again.name)
            #expect(steps == stepsAgain)
            #expect(!steps.isEmpty)
            #expect(try TreeSnapshot(fuzzer.backup).ignoringMtimes { _ in true } == first, "case \(index): \(steps)")
        }
    }

    @Test func theSecretIsFoundWhereverItIs() {
        let secret = MobileSyncMutator.secret
        #expect(FuzzBytes.contains(secret, secret))
        #expect(FuzzBytes.contains([0, 1] + secret + [2], secret))
        #expect(!FuzzBytes.contains([0, 1] + secret.dropLast(), secret))
        #expect(!FuzzBytes.contains([], secret))
    }

    @Test func aSymlinkLeavingRootIsTold() {
        #expect(MobileSyncFuzzer.escapes(link: "a/b/link", target: "../c") == nil)
        #expect(MobileSyncFuzzer.escapes(link: "a/b/link", target: "../../c") == nil)
        #expect(MobileSyncFuzzer.escapes(link: "a/b/link", target: "../../../c") != nil)
        #expect(MobileSyncFuzzer.escapes(link: "link", target: "/etc/passwd") != nil)
        #expect(MobileSyncFuzzer.escapes(link: "a/link", target: "./../x/../..") != nil)
    }
}
