// JSONResult: the object a command prints on stdout under --json: its fields plus type, command and warnings.

/// A command's result as one JSON object: `body`'s keys, and `"type": "result"`, `"command"` (the command's
/// name, e.g. `exclude check`) and `"warnings"` (every warning the command printed, in order).
struct JSONResult<Body: Encodable>: Encodable {
    let command: String
    let body: Body
    let warnings: [JSONMessage]

    private enum Keys: String, CodingKey {
        case type, command, warnings
    }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("result", forKey: .type)
        try container.encode(command, forKey: .command)
        try container.encode(warnings, forKey: .warnings)
    }
}
