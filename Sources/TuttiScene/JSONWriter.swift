/// JSON text output: compact, keys in the given order, numbers in their shortest exact form.
/// Any thread.
public enum JSONWriter {
    /// `value` as compact JSON text.
    public static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    /// Append `value` as compact JSON text to `out`.
    public static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d): out += number(d)
        case .string(let s): quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                write(v, into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.enumerated() {
                if i > 0 { out += "," }
                quote(m.key, into: &out)
                out += ":"
                write(m.value, into: &out)
            }
            out += "}"
        }
    }

    /// A number as JSON: whole numbers without a fraction, others in Swift's shortest
    /// round-tripping form, NaN and infinities as `null`.
    public static func number(_ d: Double) -> String {
        if !d.isFinite { return "null" } // JSON has no NaN or infinity
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
