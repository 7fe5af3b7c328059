// OrNull: an optional value written as JSON null when absent, never left out (docs/JSON.md: every key is present).

/// A property written as its value, or as `null` when nil: a `--json` object always has every documented key.
@propertyWrapper
struct OrNull<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension OrNull: Decodable where Value: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension OrNull: Equatable where Value: Equatable {}
extension OrNull: Sendable where Value: Sendable {}
