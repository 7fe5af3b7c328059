// FuzzConfig: how many cases the archive fuzzer runs and with which seed. CI runs the defaults (a fixed
// seed, a few thousand cases); `make fuzz N=... SEED=...` sets the environment for long runs.
import Foundation

/// Fuzzer settings, from FUZZ_* environment variables or the CI defaults.
struct FuzzConfig {
    /// FUZZ_SEED: the run's seed (case i's mutations depend only on the seed and i).
    var seed: UInt64 = 20_261_201
    /// FUZZ_CASES: how many cases.
    var cases = 2500
    /// FUZZ_FIRST: the first case index (to split a long run).
    var first = 0
    /// FUZZ_CASE: run only this case (to reproduce a finding). The seeds are built afresh with their files' times
    /// pinned (`FuzzSeeds.pinTimes`), so they hold the same bytes from run to run but for the device's container
    /// UUIDs, which DeviceKit draws at random (one container a class: the same lengths in the same places); a case
    /// that hinges on a UUID's digits may differ. A finding's saved input (FUZZ_ARTIFACTS) replays it byte for byte.
    var only: Int?
    /// Seconds a verify or restore of one case may take before it counts as a hang. Bounded work can take a
    /// while: a sparse member's holes are hashed (up to `ArchiveReader.Options.maxSparseBytes`), and a mutated
    /// header can declare gigabytes of them.
    var caseBudget = 30.0
    /// Seconds after which the watchdog aborts the process (a call that never returns).
    var hardLimit = 120.0
    /// FUZZ_BINARY_EVERY: every n-th case also runs the devicectl binary (0: never).
    var binaryEvery = 60
    /// FUZZ_REPEAT_EVERY: every n-th case restores its input a second time, which must end the same way (the restore's
    /// threads must not change the outcome): the archive fuzzer compares the message, or the verdict and the tree; the
    /// MobileSync fuzzer the exit status and a failure's message (0: never).
    var repeatEvery = 10
    /// FUZZ_ARTIFACTS: a directory to save each finding's input and description in.
    var artifacts: String?

    /// The variables' settings over the defaults; `cases` is the count when FUZZ_CASES gives none.
    static func fromEnvironment(
        cases: Int? = nil, _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> FuzzConfig {
        var config = FuzzConfig()
        if let cases { config.cases = cases }
        if let value = environment["FUZZ_SEED"].flatMap({ UInt64($0) }) { config.seed = value }
        if let value = environment["FUZZ_CASES"].flatMap({ Int($0) }) { config.cases = value }
        if let value = environment["FUZZ_FIRST"].flatMap({ Int($0) }) { config.first = value }
        config.only = environment["FUZZ_CASE"].flatMap { Int($0) }
        if let value = environment["FUZZ_BINARY_EVERY"].flatMap({ Int($0) }) { config.binaryEvery = value }
        if let value = environment["FUZZ_REPEAT_EVERY"].flatMap({ Int($0) }) { config.repeatEvery = value }
        if let value = environment["FUZZ_ARTIFACTS"], !value.isEmpty { config.artifacts = value }
        return config
    }
}
