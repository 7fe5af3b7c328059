// ExecutableEntitlementsFuzzTests: seeded mutations of valid executables (thin with section and signature, fat,
// fat64) never trap the parser, and every read it asks for lies inside the file and under the caps.
@testable import DeviceKit
import Testing
import TestSupport

@Suite struct ExecutableEntitlementsFuzzTests {
    typealias Build = MachOBuilder

    static let seeds: [[UInt8]] = {
        let entitlements = Build.entitlements(groups: ["group.com.example.news"])
        let thin = Build.thin(section: entitlements, signature: Build.superBlob(entitlements: entitlements))
        let signed = Build.thin(signature: Build.superBlob(entitlements: entitlements))
        return [thin, signed, Build.fat([(Build.arm64, thin)]), Build.fat([(Build.x86_64, signed)], wide: true)]
    }()

    /// Parses `bytes` with a reader that records a failure for any read outside the file or over the caps.
    static func parse(_ bytes: [UInt8]) -> (read: Int, outcome: String) {
        var read = 0
        do {
            let found = try ExecutableEntitlements.entitlements(size: UInt64(bytes.count)) { offset, count in
                let inside = offset <= UInt64(bytes.count) && UInt64(count) <= UInt64(bytes.count) - offset
                let capped = UInt64(count) <= ExecutableEntitlements.loadCommandsLimit
                guard inside && capped else {
                    Issue.record("read \(count) bytes at \(offset) of a \(bytes.count)-byte file")
                    return []
                }
                read += count
                return Array(bytes[Int(offset)..<Int(offset) + count])
            }
            return (read, found == nil ? "none" : "found")
        } catch is ExecutableFormatError {
            return (read, "refused")
        } catch {
            Issue.record("unexpected \(error)")
            return (read, "error")
        }
    }

    @Test func theValidSeedsAreReadWhole() {
        for seed in Self.seeds {
            let (read, outcome) = Self.parse(seed)
            #expect(outcome == "found" && read < 2048, "\(read) bytes read")
        }
    }

    @Test(arguments: 0..<4)
    func mutatedExecutablesAreReadOrRefusedWithinBounds(_ seedIndex: Int) {
        var random = SeededGenerator(seed: 0xE47 + UInt64(seedIndex))
        let seed = Self.seeds[seedIndex]
        let values: [UInt32] = [0, 1, 8, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFF0, 0xFFFF_FFFF, 0xFADE_7171]
        var outcomes: [String: Int] = [:]
        for _ in 0..<1500 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<(bytes.count - 4), using: &random) & ~3
                let value = Bool.random(using: &random) ? values.randomElement(using: &random)!
                    : UInt32.random(in: 0...UInt32.max, using: &random)
                let big = Bool.random(using: &random)
                if big { Build.putBig32(value, at: at, in: &bytes) } else { Build.put32(value, at: at, in: &bytes) }
            }
            if Int.random(in: 0..<8, using: &random) == 0 {
                bytes = Array(bytes[0..<Int.random(in: 0..<bytes.count, using: &random)])
            }
            outcomes[Self.parse(bytes).outcome, default: 0] += 1
        }
        #expect((outcomes["refused"] ?? 0) > 0 && (outcomes["found"] ?? 0) > 0, "\(outcomes)")
        #expect(outcomes["error"] == nil)
    }
}
