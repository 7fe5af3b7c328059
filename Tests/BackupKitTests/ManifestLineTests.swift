// ManifestLineTests: the fast path for devicectl's own file lines agrees with the general parser.
import SystemKit
import Testing

@testable import BackupKit

@Suite struct ManifestLineTests {
    static let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

    static func describe(_ parsed: ManifestLine?) -> String {
        switch parsed {
        case .file(let path, let size, let digest)?:
            "file \(path) \(size) \(digest)"
        case nil: "nil"
        default: "other"
        }
    }

    static func general(_ line: String) -> String {
        describe(try? ManifestLine.parseAnySpelling(Array(line.utf8)[...]))
    }

    @Test(arguments: [
        #"{"kind":"file","path":"Documents/a.json","size":12,"sha256":"\#(hex)"}"#,
        #"{"kind":"file","path":"Library/Caches/é ü/x","size":0,"sha256":"\#(hex)"}"#,
        #"{"kind":"file","path":"big","size":18446744073709551615,"sha256":"\#(hex.uppercased())"}"#,
    ])
    func devicectlSpellingTakesTheFastPathWithTheSameResult(_ line: String) {
        let fast = ManifestLine.devicectlFileLine(Array(line.utf8)[...])
        #expect(fast != nil)
        #expect(Self.describe(fast) == Self.general(line))
    }

    /// Every byte value in every place of the digest: the fast path takes exactly the hex digits (either case), with
    /// the value `Hex` gives them, and leaves anything else to the general parser (which refuses it).
    @Test func theFastPathTakesExactlyTheHexDigits() {
        let prefix = Array(#"{"kind":"file","path":"a","size":1,"sha256":""#.utf8), suffix = Array(#""}"#.utf8)
        for place in [0, 1, 31, 62, 63] {
            for byte in UInt8.min...UInt8.max {
                var digits = Array(Self.hex.utf8)
                digits[place] = byte
                let fast = ManifestLine.devicectlFileLine((prefix + digits + suffix)[...])
                if let value = Hex.digit(byte) {
                    var expected = Hex.decode(Self.hex.utf8)!
                    expected[place / 2] = place % 2 == 0 ? value << 4 | expected[place / 2] & 0x0F
                        : expected[place / 2] & 0xF0 | value
                    #expect(Self.describe(fast) == Self.describe(.file(path: [0x61], size: 1, digest: expected)),
                            "byte \(byte) at \(place)")
                } else {
                    #expect(fast == nil, "byte \(byte) at \(place)")
                }
            }
        }
    }

    @Test(arguments: [
        #"{"kind":"file","path":"a\"b","size":1,"sha256":"\#(hex)"}"#,  // an escape
        #"{"kind":"file","path":"caf\u00e9","size":1,"sha256":"\#(hex)"}"#,
        #"{"kind": "file","path":"a","size":1,"sha256":"\#(hex)"}"#,  // a space
        #"{"path":"a","kind":"file","size":1,"sha256":"\#(hex)"}"#,  // another key order
        #"{"kind":"file","path":"a","size":1,"sha256":"\#(hex)","extra":true}"#,
        #"{"kind":"file","path":"a","size":01,"sha256":"\#(hex)"}"#,  // a leading zero (invalid JSON)
        #"{"kind":"file","path":"a","size":18446744073709551616,"sha256":"\#(hex)"}"#,  // overflow
        #"{"kind":"file","path":"a","size":1,"sha256":"\#(hex.dropLast())"}"#,  // 63 digits
        #"{"kind":"file","path":"a","size":1,"sha256":"\#(hex.dropLast())g"}"#,  // not hex
        #"{"kind":"file","path":"a","size":1,"sha256":"\#(hex)"} "#,  // trailing space
        #"{"kind":"file","path":"a","size":1.5,"sha256":"\#(hex)"}"#,
    ])
    func anyOtherSpellingGoesToTheGeneralParser(_ line: String) {
        #expect(ManifestLine.devicectlFileLine(Array(line.utf8)[...]) == nil)
        // And parse() gives the general parser's answer (or its error) for it.
        let viaParse = Self.describe(try? ManifestLine.parse(Array(line.utf8)[...]))
        #expect(viaParse == Self.general(line))
    }

    /// Paths of every length up to 70 bytes with one byte of each kind at every place (the path is scanned sixteen
    /// bytes at a time): a byte JSON escapes sends the line to the general parser; any other gives its answer.
    @Test func oneByteAnywhereInThePath() {
        let escaped: [[UInt8]] = [[0x00], [0x0A], [0x1F], [0x22], [0x5C]]
        let plain: [[UInt8]] = [[0x20], [0x2F], [0x7F], Array("é".utf8)]
        let prefix = Array(#"{"kind":"file","path":""#.utf8), suffix = Array(#"","size":5,"sha256":"\#(Self.hex)"}"#.utf8)
        for length in 1...70 {
            for place in 0..<length {
                for bytes in escaped + plain {
                    var path = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    path.replaceSubrange(place..<(place + 1), with: bytes)
                    let line = prefix + path + suffix
                    let fast = ManifestLine.devicectlFileLine(line[...])
                    if escaped.contains(bytes) {
                        #expect(fast == nil, "\(bytes) at \(place) of \(length)")
                    } else {
                        #expect(Self.describe(fast) == Self.describe(.file(path: path, size: 5, digest: Hex.decode(Self.hex.utf8)!)),
                                "\(bytes) at \(place) of \(length)")
                        #expect(Self.describe(fast) == Self.general(String(decoding: line, as: UTF8.self)))
                    }
                }
            }
        }
    }

    @Test func escapedPathsAreDecodedByTheGeneralParser() throws {
        let line = #"{"kind":"file","path":"caf\u00e9 \"q\"","size":3,"sha256":"\#(Self.hex)"}"#
        guard case .file(let path, let size, _) = try ManifestLine.parse(Array(line.utf8)[...]) else {
            Issue.record("not a file line")
            return
        }
        #expect(String(decoding: path, as: UTF8.self) == "café \"q\"")
        #expect(size == 3)
    }

    /// Any valid JSON spelling of a file line is read by JSONDecoder: nested values of unknown keys too; a field of
    /// the wrong type is named as missing.
    @Test func otherSpellingsAreReadByJSONDecoder() throws {
        let nested = #"{"extra":{"a":[1,{"b":null}]},"sha256":"\#(Self.hex)","size":7,"path":"d/e","kind":"file"}"#
        #expect(Self.general(nested) == Self.describe(.file(path: Array("d/e".utf8), size: 7, digest: Hex.decode(Self.hex.utf8)!)))
        for (line, reason) in [
            (#"{"kind":"file","path":"a","size":"7","sha256":"\#(Self.hex)"}"#, "file line for 'a' without a size"),
            (#"{"kind":"file","path":7,"size":7,"sha256":"\#(Self.hex)"}"#, "a file line without a path"),
            (#"{"kind":"file","path":"a","size":7,"sha256":["x"]}"#, "file line for 'a' without a valid sha256"),
        ] {
            #expect(throws: ManifestLineError.self) { try ManifestLine.parseAnySpelling(Array(line.utf8)[...]) }
            do {
                _ = try ManifestLine.parseAnySpelling(Array(line.utf8)[...])
            } catch {
                #expect(error.description == reason)
            }
        }
    }
}
