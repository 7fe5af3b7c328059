// Placeholders: test arguments written with words like ROOT and OUT, filled in with temporary paths.

/// `words` with each placeholder (a key of `values`) replaced by its value, in one pass over each word: a value
/// put in is never searched again. (Replacing one placeholder after another would rewrite a temporary path that
/// happens to hold the next placeholder's letters: mkdtemp's suffix "OOUT28" once turned ROOT's value into two
/// paths run together.) Where two placeholders start at one place, the longer wins.
public func substitutingPlaceholders(_ words: [String], _ values: [String: String]) -> [String] {
    let keys = values.keys.sorted { $0.count > $1.count }
    return words.map { word in
        var result = ""
        var rest = Substring(word)
        while let first = rest.first {
            if let key = keys.first(where: { rest.hasPrefix($0) }) {
                result += values[key]!
                rest = rest.dropFirst(key.count)
            } else {
                result.append(first)
                rest = rest.dropFirst()
            }
        }
        return result
    }
}
