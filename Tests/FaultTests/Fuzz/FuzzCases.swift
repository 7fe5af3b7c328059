// FuzzCases: what the fuzzers share: the loop over a run's cases, and the checks on how a devicectl child ended.
import SystemKit
import TestSupport
import Testing

/// A fuzzer: cases run one by one (`runCase`), its summary worded its own way.
protocol CaseFuzzer {
    var config: FuzzConfig { get }
    /// Cases between two progress lines.
    static var reportEvery: Int { get }
    static func describe(_ summary: FuzzSummary) -> String
    func runCase(_ index: Int, into summary: inout FuzzSummary) throws
}

extension CaseFuzzer {
    /// Runs cases `config.first ..< config.first + config.cases` (or only `config.only`).
    func run(progress: (String) -> Void = { _ in }) throws -> FuzzSummary {
        try FuzzCases.run(config, reportEvery: Self.reportEvery, progress: progress, describe: Self.describe) {
            try runCase($0, into: &$1)
        }
    }
}

enum FuzzCases {
    /// Runs `body` for cases `config.first ..< config.first + config.cases` (or only `config.only`), timing each;
    /// `progress` gets the summary (as `describe` words it) every `reportEvery` cases.
    static func run(
        _ config: FuzzConfig, reportEvery: Int, progress: (String) -> Void,
        describe: (FuzzSummary) -> String = { $0.description }, _ body: (Int, inout FuzzSummary) throws -> Void
    ) rethrows -> FuzzSummary {
        var summary = FuzzSummary()
        let start = MonotonicClock.seconds()
        let indices = config.only.map { [$0] } ?? Array(config.first..<(config.first + config.cases))
        for index in indices {
            let caseStart = MonotonicClock.seconds()
            try body(index, &summary)
            let elapsed = MonotonicClock.seconds() - caseStart
            if elapsed > summary.slowest.seconds { summary.slowest = (index, elapsed) }
            summary.cases += 1
            if summary.cases % reportEvery == 0 {
                summary.seconds = MonotonicClock.seconds() - start
                progress("fuzz: \(describe(summary))")
            }
        }
        summary.seconds = MonotonicClock.seconds() - start
        return summary
    }

    /// Reports a finished run (`name` and its seed, then `describe`'s words) and records its first 20 findings as
    /// issues, each with the command that reproduces it (`suite`: the test suite's name); expects every case ran.
    static func report(
        _ summary: FuzzSummary, _ config: FuzzConfig, name: String, describe: (FuzzSummary) -> String, suite: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        FuzzWatchdog.report("fuzz (\(name)seed \(config.seed)): \(describe(summary))")
        for finding in summary.findings.prefix(20) {
            let saved = config.artifacts.map { " (its input is saved as *case-\(finding.index)* in \($0))" } ?? ""
            Issue.record(
                "\(finding)\nreproduce: FUZZ_SEED=\(config.seed) FUZZ_CASE=\(finding.index) swift test --filter \(suite)\(saved)",
                sourceLocation: sourceLocation)
        }
        #expect(summary.cases == (config.only == nil ? config.cases : 1), sourceLocation: sourceLocation)
    }

    /// What is wrong with how the finished devicectl `child` (`devicectl name`) ended: a signal, a crash, an exit
    /// status other than 0 or 1, a failure without a message (`devicectl: ...` on stderr, or with `json` one JSON
    /// object of `"type":"error"`).
    static func problems(of child: ChildProcess, _ name: String, json: Bool = false) -> [String] {
        var problems: [String] = []
        let stderr = child.stderr
        if let signal = child.killedBy { problems.append("devicectl \(name) was killed by signal \(signal): \(stderr.prefix(2000))") }
        if stderr.contains("Fatal error") || stderr.contains("Stack dump") || stderr.contains("internal error") {
            problems.append("devicectl \(name) crashed: \(stderr.prefix(2000))")
        }
        if child.killedBy == nil && child.status != 0 && child.status != 1 {
            problems.append("devicectl \(name) exited \(child.status): \(stderr.prefix(2000))")
        }
        let message = json ? stderr.hasPrefix("{") && stderr.contains("\"type\":\"error\"") : stderr.hasPrefix("devicectl: ")
        if child.killedBy == nil && child.status == 1 && !message {
            problems.append("devicectl \(name) failed without a message: \(stderr.prefix(2000))")
        }
        return problems
    }
}
