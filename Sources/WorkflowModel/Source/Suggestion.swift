import PromiseEngine

/// "Did you mean ...?": the closest known word by edit distance.
package enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a
    /// plausible typo (at most a third of the word's length, at least 1,
    /// at most 3 edits).
    package static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        // Words of one or two letters are too short to guess from, but for
        // a difference of case.
        let limit = word.utf8.count < 3 ? 0 : min(3, max(1, word.utf8.count / 3))
        var best: (word: String, distance: Int)?
        let lowered = Array(word.lowercased().utf8)
        for candidate in candidates where candidate != word {
            let distance = editDistance(lowered, Array(candidate.lowercased().utf8), limit: limit)
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.word
    }

    /// "; did you mean 'x'?" or "".
    package static func phrase(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Levenshtein distance with transpositions counted as one edit; stops
    /// early (returning a value above `limit`) when it cannot be within it.
    package static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
