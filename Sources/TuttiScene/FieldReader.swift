/// Reads one JSON object, tracking which keys were used so unknown ones are errors.
struct FieldReader {
    let path: String
    private let members: [(key: String, value: JSONValue)]
    private var used: Set<String> = []
    /// Every key asked for, present or not: the vocabulary for "did you mean".
    private var asked: Set<String> = []

    init(_ value: JSONValue, path: String) throws {
        guard case .object(let m) = value else {
            throw SceneError(path.isEmpty ? "scene" : path, "expected an object, found \(value.kindName)")
        }
        self.path = path
        members = m
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func has(_ key: String) -> Bool {
        asked.insert(key)
        return members.contains { $0.key == key }
    }

    mutating func value(_ key: String) -> JSONValue? {
        asked.insert(key)
        guard let m = members.first(where: { $0.key == key }) else { return nil }
        used.insert(key)
        return m.value
    }

    mutating func number(_ key: String, default def: Double? = nil, in range: ClosedRange<Double>? = nil, unit: String = "") throws
        -> Double
    {
        guard let v = value(key) else {
            if let def { return def }
            throw SceneError(child(key), "required number is missing")
        }
        guard case .number(let d) = v else { throw SceneError(child(key), "expected a number, found \(v.kindName)") }
        if let range, !range.contains(d) {
            throw SceneError(
                child(key),
                "\(JSONWriter.number(d))\(unit) is out of range \(JSONWriter.number(range.lowerBound))…\(JSONWriter.number(range.upperBound))\(unit)"
            )
        }
        return d
    }

    mutating func optionalNumber(_ key: String, in range: ClosedRange<Double>, unit: String = "") throws -> Double? {
        has(key) ? try number(key, in: range, unit: unit) : nil
    }

    mutating func integer(_ key: String, default def: Int, in range: ClosedRange<Int>) throws -> Int {
        let d = try number(key, default: Double(def))
        guard d == d.rounded() else { throw SceneError(child(key), "expected a whole number, found \(JSONWriter.number(d))") }
        guard Double(range.lowerBound) <= d, d <= Double(range.upperBound) else {
            throw SceneError(child(key), "\(JSONWriter.number(d)) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return Int(d)
    }

    mutating func bool(_ key: String, default def: Bool? = nil) throws -> Bool {
        guard let v = value(key) else {
            if let def { return def }
            throw SceneError(child(key), "required boolean is missing")
        }
        guard case .bool(let b) = v else { throw SceneError(child(key), "expected true or false, found \(v.kindName)") }
        return b
    }

    mutating func string(_ key: String) throws -> String {
        guard let v = value(key) else { throw SceneError(child(key), "required string is missing") }
        guard case .string(let s) = v else { throw SceneError(child(key), "expected a string, found \(v.kindName)") }
        return s
    }

    /// A string that must be one of `E`'s raw values.
    mutating func name<E: RawRepresentable & CaseIterable>(_ key: String, as: E.Type, what: String) throws -> E where E.RawValue == String {
        let s = try string(key)
        return try FieldReader.parseName(s, as: E.self, what: what, place: child(key))
    }

    mutating func optionalName<E: RawRepresentable & CaseIterable>(_ key: String, as: E.Type, what: String) throws -> E?
    where E.RawValue == String {
        has(key) ? try name(key, as: E.self, what: what) : nil
    }

    mutating func array(_ key: String, required: Bool = false) throws -> [JSONValue] {
        guard let v = value(key) else {
            if required { throw SceneError(child(key), "required array is missing") }
            return []
        }
        guard case .array(let a) = v else { throw SceneError(child(key), "expected an array, found \(v.kindName)") }
        return a
    }

    /// Every key must have been read.
    func finish() throws {
        for m in members where !used.contains(m.key) {
            var message = "unknown field"
            if let guess = FieldReader.closest(m.key, in: asked.sorted()), guess != m.key {
                message += " (did you mean \"\(guess)\"?)"
            }
            throw SceneError(child(m.key), message)
        }
    }
}
