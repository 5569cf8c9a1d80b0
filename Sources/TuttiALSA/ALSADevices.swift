import CALSA
import Glibc

/// A PCM alsa-lib knows about (`snd_device_name_hint`). Value type: any thread.
public struct ALSADeviceInfo: Sendable, Equatable {
    /// The PCM name to open (`default`, `hw:CARD=…,DEV=0`, `pulse`…).
    public var name: String
    /// alsa-lib's human description (may span lines), or nil.
    public var description: String?
    /// "Output", "Input", or nil for both.
    public var direction: String?
}

/// Lists the PCMs that can play. A namespace (no instances); any thread, not real-time.
public enum ALSADevices {
    /// Every PCM that can play (direction Output or unspecified), through `functions`
    /// (default: ``ALSAFunctions/system``; alsa-lib not installed is a `.device` `TuttiError`
    /// naming the package). Any thread, not real-time.
    public static func list(functions: ALSAFunctions? = nil) throws -> [ALSADeviceInfo] {
        let f = try functions ?? ALSAFunctions.system
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let rc = f.device_name_hint(-1, "pcm", &hints)
        guard rc >= 0, let hints else { throw ALSAError.call("snd_device_name_hint", code: rc, message: f.message(rc)) }
        defer { _ = f.device_name_free_hint(hints) }
        func take(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let p = f.device_name_get_hint(hint, id) else { return nil }
            defer { free(p) }
            return String(cString: p)
        }
        var result: [ALSADeviceInfo] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            guard let name = take(hint, "NAME") else { continue }
            let direction = take(hint, "IOID")
            if direction == "Input" { continue }
            result.append(ALSADeviceInfo(name: name, description: take(hint, "DESC"), direction: direction))
        }
        return result
    }
}
