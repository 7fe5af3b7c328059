// EventLineParserTests: the event log's own line reader against Foundation's JSONDecoder, line for line.
@testable import DeviceKit
import Foundation
import Testing

@Suite struct EventLineParserTests {
    /// What JSONDecoder makes of `line`: the event, or nil when it refuses it.
    private func decoded(_ line: [UInt8]) -> DeviceEvent? {
        try? JSONDecoder().decode(DeviceEvent.self, from: Data(line))
    }

    private func agree(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = EventLineParser.event(line)
        let reference = decoded(line)
        #expect(
            ours == reference, "\(String(decoding: line, as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation)
    }

    private func written(_ event: DeviceEvent) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(event))
    }

    @Test func linesDevicectlWritesReadAsTheyWereWritten() throws {
        let events = [
            DeviceEvent(time: Date(timeIntervalSince1970: 1_764_579_600), type: "launch", app: "com.example.news",
                details: ["source": "home-screen"]),
            DeviceEvent(time: Date(timeIntervalSince1970: 1_764_579_600.25), type: "backup",
                details: ["archive": "/tmp/a \"b\"\\c/d.tar", "note": "tab\there, newline\nthere, \u{1} and é 📱"]),
            DeviceEvent(time: Date(timeIntervalSince1970: 0), type: "init"),
        ]
        for event in events {
            let line = try written(event)
            #expect(EventLineParser.event(line) == event)
            agree(line)
        }
    }

    @Test func handWrittenLinesAreAcceptedAndRefusedAsJSONDecoderDoes() {
        let lines = [
            #"{"time":"2026-12-01T09:00:00Z","type":"launch","details":{}}"#,
            #"  { "type" : "launch" , "time":"t", "app" : null, "details" : { "a" : "b" , "a":"c"} }  "#,
            #"{"time":"t","type":"x","details":{},"extra":[1,-2.5e+3,true,false,null,{"k":[[]]},"s\u00e9"]}"#,
            #"{"time":"t","type":"x","details":{},"n":0.5,"m":-0,"e":1E9}"#,
            #"{"time":"t","type":"x","details":{},"v":[1,2,],"w":{"a":1,},}"#,
            // What JSONDecoder does not check in a value it skips: escapes, control characters, number forms.
            "{\"time\":\"t\",\"type\":\"x\",\"details\":{},\"v\":\"a\\.b\\u00zz\\u00e\\\u{1}\",\"n\":[01,1.,-]}",
            #"{"time":"t","type":"x","details":{},"v":"\u00"}"#,
            #"{"time":"t","type":"x","details":{},"v":"\u0"9"}"#,
            #"{"time":"t","time":5,"type":"x","app":null,"app":"y","details":{"k":"v"},"details":7}"#,
            #"{"time":"t","type":"x","details":{},"v":[}"#,
            #"{"time":"t","type":"x","details":{},"v":{]}"#,
            #"{"time":"t","type":"x","details":{},"v":[,]}"#,
            #"{"time":"t","type":"x","details":{},"v":-}"#,
            #"{"time":"t","type":"x","details":{,}}"#,
            #"{,"time":"t","type":"x","details":{}}"#,
            #"{"time":"t","type":"x","details":{"k":"\ud83d\udcf1 \u0041\/"}}"#,
            "\u{FEFF}{\"time\":\"t\",\"type\":\"x\",\"details\":{}}",
            "{\"time\":\"t\",\"type\":\"x\",\"details\":{}}\r",
            // Refused.
            #"{"time":"t","type":"x"}"#,
            #"{"time":"t","details":{}}"#,
            #"{"time":1,"type":"x","details":{}}"#,
            #"{"time":"t","type":"x","details":{"k":1}}"#,
            #"{"time":"t","type":"x","details":null}"#,
            #"{"time":"t","type":"x","app":5,"details":{}}"#,
            #"{"time":"t","type":"x","details":{}} x"#,
            #"{"time":"t","type":"x","details":{},}"#,
            #"{"time":"t","type":"x","details":{},"n":01}"#,
            #"{"time":"t","type":"x","details":{},"n":1.}"#,
            #"{"time":"t","type":"x","details":{},"n":+1}"#,
            #"{"time":"t","type":"x","details":{},"v":tru}"#,
            #"{"time":"t","type":"x","details":{"k":"\ud83d"}}"#,
            #"{"time":"t","type":"x","details":{"k":"\udcf1"}}"#,
            #"{"time":"t","type":"x","details":{"k":"\q"}}"#,
            #"{"time":"t","type":"x","details":{"k":"\u12"}}"#,
            "{\"time\":\"t\u{1}\",\"type\":\"x\",\"details\":{}}",
            #"["time"]"#, "", "{", "}", "null", #"{"time":"t""#,
        ]
        for line in lines { agree(Array(line.utf8)) }
        // Bytes that are not UTF-8 inside a string.
        agree(Array(#"{"time":"t"#.utf8) + [0xFF, 0xFE] + Array(#"","type":"x","details":{}}"#.utf8))
        agree(Array(#"{"time":"t"#.utf8) + [0xC3] + Array(#"","type":"x","details":{}}"#.utf8))
    }

    @Test func deepAndLongValuesAreBounded() {
        let deep = { (depth: Int) in
            Array(#"{"time":"t","type":"x","details":{},"v":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                + Array(repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")]
        }
        agree(deep(100))
        #expect(EventLineParser.event(deep(100)) != nil)
        // Far past any decoder's nesting limit: refused, not a stack overflow.
        #expect(EventLineParser.event(deep(100_000)) == nil)
        let long = String(repeating: "é", count: 200_000)
        agree(Array(#"{"time":"t","type":"x","details":{"k":"\#(long)"}}"#.utf8))
    }

    /// Seeded mutations of written lines (a byte changed, inserted, removed, or the line cut): each is read as
    /// JSONDecoder reads it.
    @Test func mutatedLinesAgreeWithJSONDecoder() throws {
        var random = SplitMix(seed: 20_261_202)
        let alphabet = Array(#"{}[]":,\ u0123456789abcdefnulltrue-+.eE"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        let base = try written(DeviceEvent(
            time: Date(timeIntervalSince1970: 1_764_579_600.5), type: "notification-delivered", app: "com.example.news",
            details: ["id": "nudge-1", "reason": "restored \"device\" é"]))
        let nested = Array(#"{"app":null,"details":{"k\u00e9":"v"},"extra":{"k\u00e9":["a",1.5e3,{"x":"y"},true]},"time":"t","type":"x"}"#.utf8)
        var accepted = 0
        for round in 0..<8_000 {
            var line = round % 2 == 0 ? base : nested
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let at = Int(random.next() % UInt64(line.count))
                switch random.next() % 4 {
                case 0: line[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: line.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                case 2: if line.count > 1 { line.remove(at: at) }
                default: line = Array(line.prefix(at))
                }
                if line.isEmpty { break }
            }
            agree(line)
            if EventLineParser.event(line) != nil { accepted += 1 }
        }
        // Both outcomes occur (the mutations are not all fatal, nor all harmless).
        #expect(accepted > 100)
        #expect(accepted < 7_900)
    }
}

/// A small seeded generator (SplitMix64), so every run mutates the same way.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
