// DeviceRootFuzzTests: the device-root fuzzer with a fixed seed (CI).
// Long runs: `make fuzz-device N=3000 SEED=7` (see FuzzConfig for the FUZZ_* variables).
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct DeviceRootFuzzTests {
    @Test func commandsOnMutatedDevicesStayInsideRoot() throws {
        let config = FuzzConfig.fromEnvironment(cases: 150)
        let fuzzer = try DeviceRootFuzzer(config: config)
        let summary = try fuzzer.run { FuzzWatchdog.report($0) }
        FuzzCases.report(summary, config, name: "device roots, ", describe: DeviceRootFuzzer.describe, suite: "DeviceRootFuzzTests")
        // Both outcomes, or the mutations are too weak (or too strong) to test anything.
        if config.only == nil && config.cases >= 100 {
            #expect(summary.verifiedRestores > config.cases / 2)
            #expect(summary.cleanFailures > config.cases / 4)
        }
    }

    @Test func theSameSeedGivesTheSameDevice() throws {
        var config = FuzzConfig()
        config.cases = 0
        let fuzzer = try DeviceRootFuzzer(config: config)
        for index in [5, 23] {
            let first = try fuzzer.prepare(index)
            let tree = try TreeSnapshot(fuzzer.root).ignoringMtimes { _ in true }
            let again = try fuzzer.prepare(index)
            #expect(first.steps == again.steps)
            #expect(first.commands == again.commands)
            #expect(try TreeSnapshot(fuzzer.root).ignoringMtimes { _ in true } == tree, "case \(index): \(first.steps)")
        }
    }
}
