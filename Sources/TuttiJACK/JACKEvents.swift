/// Value type: thrown on the control thread (open, start), kept by the supervisor when it
/// gives up (`JACKOutput.failure`).
public enum JACKError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `jack_client_open` found no server of that name (libjack never starts one for Tutti).
    case noServer(serverName: String)
    /// `jack_client_open` failed otherwise; `status` is libjack's `jack_status_t` bits.
    case openFailed(serverName: String, status: UInt32)
    /// The engine must run at the server's rate: open the client first, then build the engine.
    case rateMismatch(engine: Int, server: Int)
    /// A port named in `JACKConnection.ports` does not exist on the server.
    case unknownPort(String)
    /// A port named in `JACKConnection.ports` is not an input (cannot receive our output).
    case notAnInputPort(String)
    /// `JACKConnection.ports` must name one port per channel.
    case connectionCount(ports: Int, channels: Int)
    /// A libjack call failed: which call and its return code.
    case call(String, code: Int32)
    /// The server ran no process cycle within the start timeout after activation.
    case noCycles(seconds: Double)
    /// A configuration value out of range (which one, and why).
    case invalidConfiguration(String)

    /// The message `tutti` prints after "error: ".
    public var description: String {
        switch self {
        case .noServer(let name):
            return name == "default" ? "no JACK server running" : "no JACK server running (server name \"\(name)\")"
        case .openFailed(let name, let status):
            return "could not open a JACK client on server \"\(name)\": \(JACKError.describe(status: status))"
        case .rateMismatch(let e, let s): return "the JACK server runs at \(s) Hz, the engine at \(e) Hz"
        case .unknownPort(let p): return "no JACK port \"\(p)\" (jack_lsp lists the ports)"
        case .notAnInputPort(let p): return "JACK port \"\(p)\" is not an input port: it cannot receive audio"
        case .connectionCount(let p, let c):
            return "\(p) port\(p == 1 ? "" : "s") to connect for \(c) output channel\(c == 1 ? "" : "s"): give one port per channel"
        case .call(let what, let code): return "\(what) failed (\(code))"
        case .noCycles(let s): return "the JACK server ran no process cycle within \((s * 10).rounded() / 10) s of activation"
        case .invalidConfiguration(let s): return "invalid JACK configuration: \(s)"
        }
    }

    /// libjack's status bits in words.
    static func describe(status: UInt32) -> String {
        let names: [(UInt32, String)] = [
            (0x02, "invalid option"), (0x04, "client name not unique"), (0x10, "server failed"),
            (0x20, "server error"), (0x40, "no such client"), (0x80, "load failure"), (0x100, "init failure"),
            (0x200, "shared memory failure"), (0x400, "protocol version mismatch"), (0x800, "backend error"),
            (0x1000, "client zombie"),
        ]
        let found = names.filter { status & $0.0 != 0 }.map(\.1)
        return (found.isEmpty ? "failure" : found.joined(separator: ", ")) + " (status 0x\(String(status, radix: 16)))"
    }
}

/// Seconds as people write them: 1, 0.5, 2.25 (no trailing ".0").
func shortSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
}
