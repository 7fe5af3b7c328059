// WidgetSnapshot: what the widget sees when its timeline is refreshed (the decision's only device input).
import Foundation

/// The state the widget reads from its App Group: whether the marker file exists and the flag's value.
public struct WidgetSnapshot: Sendable, Equatable {
    /// The shared defaults flag as the widget reads it.
    public enum Flag: String, Sendable, CaseIterable {
        /// A property-list boolean `true`: the app has been launched (on this device or the backed-up one).
        case `true`
        /// A property-list boolean `false`: cleared by a refresh.
        case `false`
        /// The key is not in the suite (or the suite has never been written).
        case absent
        /// The key holds something other than a boolean (an integer, a string ...).
        case notBoolean = "not-boolean"
        /// The suite's plist could not be read at all.
        case unreadable
    }

    public var markerPresent: Bool
    public var flag: Flag

    public init(markerPresent: Bool, flag: Flag) {
        self.markerPresent = markerPresent
        self.flag = flag
    }

    /// Classifies a value read from a defaults suite. Only a property-list boolean counts as one:
    /// Foundation bridges the integer 1 to `true` under `as? Bool`, so the dynamic type decides.
    /// (iOS's `bool(forKey:)` would also accept 1 or "YES"; the seed's app only ever writes a boolean.)
    public static func flag(from value: Any?) -> Flag {
        guard let value else { return .absent }
        guard type(of: value) == Bool.self, let boolean = value as? Bool else { return .notBoolean }
        return boolean ? .true : .false
    }
}
