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
    /// The server did not come back within the reconnect timeout; the last reason it failed.
    case reconnectTimedOut(seconds: Double, lastError: String)
    /// A configuration value out of range (which one, and why).
    case invalidConfiguration(String)
    /// `start` was called twice, or after the client was closed.
    case alreadyStarted

    /// The message `tutti` prints after "error: ".
    public var description: String {
        switch self {
        case .noServer(let name):
            let base = "no JACK server running (start jackd, or use --backend alsa)"
            return name == "default" ? base : "\(base); server name \"\(name)\""
        case .openFailed(let name, let status):
            return "could not open a JACK client on server \"\(name)\": \(JACKError.describe(status: status))"
        case .rateMismatch(let e, let s): return "the JACK server runs at \(s) Hz, the engine at \(e) Hz"
        case .unknownPort(let p): return "no JACK port \"\(p)\" (`tutti devices --backend jack` or jack_lsp list them)"
        case .notAnInputPort(let p): return "JACK port \"\(p)\" is not an input port: it cannot receive audio"
        case .connectionCount(let p, let c):
            return "\(p) port\(p == 1 ? "" : "s") to connect for \(c) output channel\(c == 1 ? "" : "s"): give one port per channel"
        case .call(let what, let code): return "\(what) failed (\(code))"
        case .noCycles(let s): return "the JACK server ran no process cycle within \((s * 10).rounded() / 10) s of activation"
        case .reconnectTimedOut(let s, let last):
            return "the JACK server did not come back within \(shortSeconds(s)) s (last attempt: \(last))"
        case .invalidConfiguration(let s): return "invalid JACK configuration: \(s)"
        case .alreadyStarted: return "the output is already started"
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

/// Why the output route changed, named like `TuttiPolicy.RouteChangeReason` (and
/// `ALSARouteChangeReason`) so the policy layer maps it by raw value. Value type: any thread.
public enum JACKRouteChangeReason: String, Sendable {
    /// The server went away.
    case oldDeviceUnavailable
    /// The server is back.
    case newDeviceAvailable
}

/// Something the backend reports to the control side: the same cases as `ALSAEvent` where
/// JACK has them (xrun, device lost / restored, route changed, finished), plus what only JACK
/// has (buffer-size changes, giving up, silence played for a late control thread). Value
/// type: made on the supervisor thread, read on the control thread (`pollEvents`) or in
/// `onEvent`.
public enum JACKEvent: Sendable, Equatable, CustomStringConvertible {
    /// JACK reported an xrun (anywhere in its graph); `total` so far.
    case xrun(total: Int)
    /// The server went away (shut down, crashed, or dropped this client); `reason` is libjack's.
    case deviceLost(message: String)
    /// Reconnected after a loss, with what the server gave this time.
    case deviceRestored(JACKNegotiated)
    /// For the policy layer: the output went away or came back (`device` is the server name).
    case routeChanged(JACKRouteChangeReason, device: String)
    /// The server's buffer size (frames per process cycle) changed.
    case bufferSizeChanged(frames: Int)
    /// The control thread had not queued the commands for the frames due: the process
    /// callback played `frames` frames of silence instead of rendering them early. The
    /// output is delayed, never changed.
    case commandsLate(frames: Int64)
    /// No server within the reconnect timeout: the output stopped for good.
    case gaveUp(JACKError)
    /// The frame limit given to `start` has been rendered.
    case finished(frames: Int64)

    /// One line for logs and `tutti play`'s stderr.
    public var description: String {
        switch self {
        case .xrun(let n): "xrun (\(n) so far)"
        case .deviceLost(let m): "device lost: \(m)"
        case .deviceRestored(let n): "device restored: \(n)"
        case .routeChanged(let r, let d): "route changed: \(r.rawValue) (\(d))"
        case .bufferSizeChanged(let n): "buffer size changed to \(n) frames"
        case .commandsLate(let n): "the control thread was late: \(n) frames of silence played (the output is delayed, not changed)"
        case .gaveUp(let e): "gave up: \(e)"
        case .finished(let n): "finished (\(n) frames)"
        }
    }
}

/// Seconds as people write them: 1, 0.5, 2.25 (no trailing ".0").
func shortSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
}
