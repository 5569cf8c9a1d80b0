/// Names from a fixed vocabulary (categories, actions, …) and "did you mean" suggestions
/// for misspelled ones and for unknown keys.
extension FieldReader {
    /// `s` as one of `E`'s raw values, or an error at `place` listing them (and the closest one).
    static func parseName<E: RawRepresentable & CaseIterable>(_ s: String, as: E.Type, what: String, place: String) throws -> E
    where E.RawValue == String {
        if let e = E(rawValue: s) { return e }
        let names = E.allCases.map(\.rawValue)
        var message = "unknown \(what) \"\(s)\""
        if let guess = closest(s, in: names) { message += " (did you mean \"\(guess)\"?)" }
        message += "; expected one of: " + names.joined(separator: ", ")
        throw SceneError(place, message)
    }

    /// A name within edit distance 2, for "did you mean".
    static func closest(_ s: String, in names: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var prev = Array(0...b.count)
            for (i, ca) in a.enumerated() {
                var cur = [i + 1] + Array(repeating: 0, count: b.count)
                for (j, cb) in b.enumerated() {
                    cur[j + 1] = min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ca == cb ? 0 : 1))
                }
                prev = cur
            }
            return prev[b.count]
        }
        let a = Array(s.lowercased())
        let scored = names.map { ($0, distance(a, Array($0.lowercased()))) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
