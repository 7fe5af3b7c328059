// JSONVocabulary: docs/JSON.md read as a schema, and a checker that holds devicectl's --json output to it.
//
// Every `| key | type | meaning |` table on that page defines an object: the one under `### NAME` is NAME
// (backticks dropped: `### \`exclude check\`` is the `exclude check` result), the one under "Standard output"
// is the keys every result adds, the one under "Standard error" is a stderr line. Types: string, integer, number,
// boolean, JSON (anything), [T], {string: T}, T | null, or an object's name.
import Foundation
import Testing

/// A JSON value decoded strictly enough to tell integers from fractions and booleans from numbers.
indirect enum StrictJSON: Decodable {
    case null
    case bool(Bool)
    case integer
    case number
    case string(String)
    case array([StrictJSON])
    case object([String: StrictJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if (try? container.decode(Int64.self)) != nil || (try? container.decode(UInt64.self)) != nil {
            self = .integer
        } else if (try? container.decode(Double.self)) != nil {
            self = .number
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([StrictJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: StrictJSON].self))
        }
    }

    /// The object's value for `key`, when this is an object holding a string there.
    subscript(string key: String) -> String? {
        guard case .object(let fields) = self, case .string(let value)? = fields[key] else { return nil }
        return value
    }
}

/// docs/JSON.md's objects: name -> [(key, type)] in the page's order.
struct JSONVocabulary {
    let objects: [String: [(key: String, type: String)]]

    /// The result keys every command adds, and the stderr line.
    static let resultName = "Result"
    static let stderrName = "StderrLine"

    static func load() throws -> JSONVocabulary {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/JSON.md")
        return parse(try String(contentsOf: docs, encoding: .utf8))
    }

    static func parse(_ text: String) -> JSONVocabulary {
        var objects: [String: [(key: String, type: String)]] = [:]
        var heading = ""
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## Standard output") { heading = resultName }
            else if line.hasPrefix("## Standard error") { heading = stderrName }
            else if line.hasPrefix("### ") { heading = line.dropFirst(4).replacingOccurrences(of: "`", with: "") }
            if line == "| key | type | meaning |" {
                inTable = true
                objects[heading] = []
                continue
            }
            guard inTable, line.hasPrefix("|") else {
                inTable = false
                continue
            }
            if line.hasPrefix("|---") { continue }
            let cells = cells(line)
            guard cells.count >= 2 else { continue }
            objects[heading, default: []].append(
                (cells[0].replacingOccurrences(of: "`", with: ""), cells[1]))
        }
        return JSONVocabulary(objects: objects)
    }

    /// A table row's cells, split at `|` but not at `\|`.
    private static func cells(_ line: String) -> [String] {
        let marker = "\u{0}"
        let protected = line.replacingOccurrences(of: "\\|", with: marker)
        return protected.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.replacingOccurrences(of: marker, with: "|").trimmingCharacters(in: .whitespaces) }
    }

    /// Every way `value` differs from the object `name` (plus `extra`'s keys), each naming where.
    func problems(_ value: StrictJSON, object name: String, adding extra: String? = nil) -> [String] {
        guard var fields = objects[name] else { return ["docs/JSON.md has no table for \(name)"] }
        if let extra { fields += objects[extra] ?? [] }
        guard case .object(let actual) = value else { return ["\(name): not an object"] }
        var found: [String] = []
        let documented = Set(fields.map(\.key))
        for key in Set(actual.keys).subtracting(documented).sorted() {
            found.append("\(name).\(key): printed but not documented")
        }
        for (key, type) in fields {
            guard let item = actual[key] else {
                found.append("\(name).\(key): documented but not printed")
                continue
            }
            found += problems(item, type: type, at: "\(name).\(key)")
        }
        return found
    }

    /// Every way `value` differs from the type expression `type`.
    func problems(_ value: StrictJSON, type: String, at place: String) -> [String] {
        let alternatives = Self.alternatives(type)
        if case .null = value {
            let allowed = alternatives.contains("null") || alternatives.contains("JSON")
            return allowed ? [] : ["\(place): null, not \(type)"]
        }
        var best: [String]?
        for alternative in alternatives where alternative != "null" {
            let found = problemsOne(value, type: alternative, at: place)
            if found.isEmpty { return [] }
            if best == nil { best = found }
        }
        return best ?? ["\(place): not \(type)"]
    }

    private func problemsOne(_ value: StrictJSON, type: String, at place: String) -> [String] {
        switch (type, value) {
        case ("JSON", _), ("string", .string), ("boolean", .bool), ("integer", .integer), ("number", .integer),
            ("number", .number):
            return []
        case _ where type.hasPrefix("[") && type.hasSuffix("]"):
            guard case .array(let items) = value else { return ["\(place): not an array (\(type))"] }
            let element = String(type.dropFirst().dropLast())
            return items.enumerated().flatMap { problems($0.element, type: element, at: "\(place)[\($0.offset)]") }
        case _ where type.hasPrefix("{string: ") && type.hasSuffix("}"):
            guard case .object(let fields) = value else { return ["\(place): not an object (\(type))"] }
            let element = String(type.dropFirst("{string: ".count).dropLast())
            return fields.sorted { $0.key < $1.key }.flatMap {
                problems($0.value, type: element, at: "\(place).\($0.key)")
            }
        case _ where objects[type] != nil:
            return problems(value, object: type).map { "\(place) -> \($0)" }
        default:
            return ["\(place): \(value) is not \(type)"]
        }
    }

    /// `A | B | null` split at the top level (not inside brackets or braces).
    static func alternatives(_ type: String) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        for character in type {
            if character == "[" || character == "{" { depth += 1 }
            if character == "]" || character == "}" { depth -= 1 }
            if character == "|" && depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }
}
