// NudgeSettingsPropertyListTests: `NudgeSettings(propertyList:)` accepts and refuses exactly what PropertyListDecoder
// does for the same plist (the way an app's settings were read before), value kind by value kind, field by field.
@testable import DeviceKit
import Foundation
import PropertyListKit
import Testing

@Suite struct NudgeSettingsPropertyListTests {
    static let fields = ["policy", "delaySeconds", "title", "body", "markerFileName", "flagKey"]

    /// Every kind of plist value, with the edge cases of each.
    static let values: [(String, PropertyListObject)] = [
        ("once", .string("once")), ("as-published", .string("as-published")), ("Once", .string("Once")),
        ("empty string", .string("")), ("non-ASCII string", .string("Bienvenue à bord ✈︎")),
        ("number text", .string("86400")),
        ("integer", .integer(86_400)), ("zero", .integer(0)), ("negative integer", .integer(-3)),
        ("2^53 + 1", .integer(9_007_199_254_740_993)), ("Int64.max", .integer(.max)), ("Int64.min", .integer(.min)),
        ("real", .real(2.5)), ("negative zero", .real(-0.0)), ("NaN", .real(.nan)), ("infinity", .real(.infinity)),
        ("tiny real", .real(.leastNonzeroMagnitude)),
        ("true", .bool(true)), ("false", .bool(false)), ("data", .data([0x6F, 0x6E, 0x63, 0x65])),
        ("date", .date(Date(timeIntervalSince1970: 86_400))), ("uid", .uid(7)),
        ("array", .array([.string("once")])), ("empty array", .array([])),
        ("dictionary", .dictionary([("policy", .string("once"))])), ("empty dictionary", .dictionary([])),
    ]

    static let valid: [(String, PropertyListObject)] = [
        ("policy", .string("once")), ("delaySeconds", .real(86_400)), ("title", .string("Welcome")),
        ("body", .string("Open the app")), ("markerFileName", .string("marker.txt")), ("flagKey", .string("flag")),
    ]

    /// The old reading: the dictionary back to a binary plist, decoded by PropertyListDecoder.
    private func decoded(_ raw: Any) -> NudgeSettings? {
        guard let bytes = try? PropertyListFile.encode(raw) else { return nil }
        return try? PropertyListDecoder().decode(NudgeSettings.self, from: Data(bytes))
    }

    private func same(_ a: NudgeSettings?, _ b: NudgeSettings?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        var x = a, y = b
        if a.delaySeconds.isNaN && b.delaySeconds.isNaN { (x.delaySeconds, y.delaySeconds) = (0, 0) }
        return x == y && a.delaySeconds.bitPattern == b.delaySeconds.bitPattern
    }

    private func compare(_ object: PropertyListObject, _ label: String) {
        let raw = object.foundation
        let direct = NudgeSettings(propertyList: raw), old = decoded(raw)
        #expect(same(direct, old), "\(label): direct \(String(describing: direct)), PropertyListDecoder \(String(describing: old))")
    }

    @Test func everyValueInEveryField() {
        var accepted = 0
        for field in Self.fields {
            for (label, value) in Self.values {
                let pairs = Self.valid.map { $0.0 == field ? (field, value) : $0 }
                compare(.dictionary(pairs), "\(field) = \(label)")
                if NudgeSettings(propertyList: PropertyListObject.dictionary(pairs).foundation) != nil { accepted += 1 }
            }
        }
        // Not vacuous: policy's two raw values, the six strings in each of the four texts, the eleven numbers in
        // delaySeconds.
        #expect(accepted == 2 + 4 * 6 + 11)
    }

    @Test func missingExtraAndRepeatedKeys() {
        for field in Self.fields {
            compare(.dictionary(Self.valid.filter { $0.0 != field }), "without \(field)")
        }
        compare(.dictionary(Self.valid + [("extra", .integer(1)), ("nested", .dictionary([("a", .bool(true))]))]), "extra keys")
        compare(.dictionary(Self.valid + [("policy", .string("as-published"))]), "policy twice, the last valid")
        compare(.dictionary(Self.valid + [("title", .integer(1))]), "title twice, the last an integer")
        compare(.dictionary(Self.valid), "the valid settings")
        #expect(NudgeSettings(propertyList: PropertyListObject.dictionary(Self.valid).foundation) != nil)
    }

    @Test func topLevelsThatAreNotDictionaries() {
        for (label, value) in Self.values where !label.contains("dictionary") {
            compare(value, "top level \(label)")
        }
        compare(.array(Self.valid.map { .string($0.0) }), "an array of the keys")
    }
}
