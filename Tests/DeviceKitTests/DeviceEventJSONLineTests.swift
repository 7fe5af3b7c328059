// DeviceEventJSONLineTests: an event's log line is what JSONEncoder (.sortedKeys, .withoutEscapingSlashes) wrote
// before, for seeded events with odd texts, with and without an app, with no details and many.
@testable import DeviceKit
import Foundation
import Testing

@Suite struct DeviceEventJSONLineTests {
    @Test func linesAsJSONEncoderWroteThem() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let texts = ["", "launch", "com.example.news", "a/b", "quote \" and \\", "tab\tnew\nline\u{0}\u{1F}\u{7F}",
                     "é中😀\u{2028}", "CamelCase", "_under", "9digits", "ｗｉｄｅ"]
        var state: UInt64 = 3
        func pick() -> String {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return texts[Int(state >> 33) % texts.count]
        }
        var checked = 0
        for round in 0..<600 {
            var details: [String: String] = [:]
            for _ in 0..<(round % 7) { details[pick()] = pick() }
            let event = DeviceEvent(
                recorded: pick(), type: pick(), app: round % 3 == 0 ? nil : pick(), details: details)
            #expect(event.jsonLine == Array(try encoder.encode(event)), "\(event)")
            checked += 1
        }
        #expect(checked == 600)
    }
}
