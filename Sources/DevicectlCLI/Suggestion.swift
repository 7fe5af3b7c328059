// Suggestion: "did you mean ...?" by edit distance, for commands and for options.

enum Suggestion {
    /// The candidate closest to `word` by edit distance, if it is close enough to be a plausible typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored else { return nil }
        return score <= max(2, best.count / 3) ? best : nil
    }

    /// The option `word` (an unknown `-x`, `--xyz` or `-xyz`) was probably meant to be, among `names`.
    ///
    /// Short options are compared with short options and long with long: `-v` never suggests `--version`
    /// and `--v` never `-o`. The one crossing is a wrong number of dashes on an exact name (`-json` for
    /// `--json`, `--int` for `-int`), which is said as such. A one-letter option has no typo neighbours
    /// (every other letter is one edit away), so `-v` suggests nothing. Otherwise the candidate must have
    /// a similar length and be within a third of the word's length in edits (transpositions count one).
    static func option(for word: String, in names: [String]) -> String? {
        let dashes = word.prefix(while: { $0 == "-" }).count
        let body = String(word.dropFirst(dashes))
        guard !body.isEmpty, dashes <= 2 else { return nil }
        let otherDashes = String(repeating: "-", count: dashes == 1 ? 2 : 1)
        if names.contains(otherDashes + body) { return otherDashes + body }
        guard body.count >= 2 else { return nil }
        let limit = max(1, min(2, body.count / 3))
        let scored = names.compactMap { name -> (String, Int)? in
            let nameDashes = name.prefix(while: { $0 == "-" }).count
            let nameBody = String(name.dropFirst(nameDashes))
            guard nameDashes == dashes, abs(nameBody.count - body.count) <= limit else { return nil }
            return (name, distance(body, nameBody))
        }
        guard let (best, score) = scored.min(by: { $0.1 < $1.1 }), score <= limit, score < body.count else {
            return nil
        }
        return best
    }

    /// Edit distance with adjacent transpositions counted as one edit (optimal string alignment).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
