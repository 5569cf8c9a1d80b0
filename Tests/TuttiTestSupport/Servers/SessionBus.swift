import Foundation
import Glibc

/// A private D-Bus session bus (dbus-daemon --session on a socket of its own): the tests never
/// touch the machine's buses. Stopped when dropped. Thread: the test's.
public final class PrivateSessionBus {
    /// Whether dbus-daemon, dbus-send and dbus-monitor are installed (the Debian package dbus).
    public static let isAvailable =
        access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/bin/dbus-send", X_OK) == 0 && access("/usr/bin/dbus-monitor", X_OK) == 0
    /// Its temporary folder (socket, log).
    public let directory: String
    /// DBUS_SESSION_BUS_ADDRESS for a child.
    public let address: String
    private let daemon: Child

    /// Starts the daemon; returns once its socket exists (10 s at most).
    public init() throws {
        directory = makeTemporaryFolder("tutti-dbus")
        address = "unix:path=\(directory)/bus"
        daemon = try Child(
            ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"], stdout: directory + "/daemon.out")
        guard eventually(10, { access(directory + "/bus", F_OK) == 0 }) else { throw POSIXError(.ETIMEDOUT) }
    }

    deinit {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `dbus-send --session --print-reply ARGUMENTS` on this bus.
    public func send(_ arguments: [String]) throws -> Tool.Result {
        try Tool.run(["/usr/bin/dbus-send", "--session", "--print-reply"] + arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
    }

    /// The names on the bus.
    public func names() throws -> String {
        try send(["--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"]).stdout
    }

    /// A property of the MPRIS player `name` serves, as dbus-send prints it.
    public func property(_ name: String, _ interface: String, _ property: String) throws -> Tool.Result {
        try send([
            "--dest=\(name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Get", "string:\(interface)", "string:\(property)",
        ])
    }

    /// The Position property of `name`'s player, in microseconds (nil: no answer).
    public func position(_ name: String) throws -> Int64? {
        let out = try property(name, "org.mpris.MediaPlayer2.Player", "Position").stdout
        guard let r = out.range(of: "int64 ") else { return nil }
        return Int64(out[r.upperBound...].prefix { $0.isNumber })
    }

    /// Calls `method` (Player's unless it names its interface) on `name`'s /org/mpris/MediaPlayer2.
    public func call(_ name: String, _ method: String, _ arguments: [String] = []) throws -> Tool.Result {
        let full = method.contains(".") ? method : "org.mpris.MediaPlayer2.Player.\(method)"
        return try send(["--dest=\(name)", "/org/mpris/MediaPlayer2", full] + arguments)
    }
}
