// NudgeSettings+PropertyList: the settings read straight from a parsed plist, as PropertyListDecoder reads them.
import Foundation

extension NudgeSettings {
    /// The settings in `raw`, a dictionary in the form `PropertyListFile.parse` returns; nil where
    /// `PropertyListDecoder` would refuse the same plist for this type's `Codable` form (the tests compare the two on
    /// every kind of value in every field): the six keys present, the texts strings, `policy` one of its raw values,
    /// `delaySeconds` a number (an integer becomes the nearest Double; a Bool is not a number), other keys ignored.
    /// Limits are checked by `validate()`, as before. Reading an app used to convert this dictionary back to a
    /// binary plist for `PropertyListDecoder`: with its first type lookups, 5% of a backup of an empty 8-app device.
    init?(propertyList raw: Any) {
        guard let fields = raw as? [String: Any],
            let policyText = fields["policy"].flatMap(Self.text), let policy = Policy(rawValue: policyText),
            let delay = fields["delaySeconds"].flatMap(Self.number),
            let title = fields["title"].flatMap(Self.text), let body = fields["body"].flatMap(Self.text),
            let marker = fields["markerFileName"].flatMap(Self.text), let flag = fields["flagKey"].flatMap(Self.text)
        else { return nil }
        self.init(policy: policy, delaySeconds: delay, title: title, body: body, markerFileName: marker, flagKey: flag)
    }

    private static func text(_ value: Any) -> String? {
        value as? String
    }

    /// An integer or a real (`NSNumber`, as the plist reader gives them); never a Bool, which Foundation would also
    /// show as a number.
    private static func number(_ value: Any) -> Double? {
        guard type(of: value) != Bool.self, let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }
}
