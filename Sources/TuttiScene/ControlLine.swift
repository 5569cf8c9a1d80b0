import TuttiPolicy

/// One line a person types while `tutti play` plays (`volume 0.5`, `route headphones`,
/// `silent on`, `lock`, `remote pause`, `call begin`, `gain song 0.3`, `crossfade b a 2`, …):
/// the scene action it stands for (the mixer's ones at the default ramp).
/// Value type: any thread.
public struct ControlLine: Sendable, Equatable {
    /// What it does, as the scene's own events would say it.
    public var action: Scene.Action

    /// A line that does `action` (one built by the program rather than typed: `tutti play`'s
    /// PipeWire watcher reports other applications' audio this way). Any thread.
    public init(action: Scene.Action) { self.action = action }

    /// The lines understood, for the help text and for errors.
    public static let help = """
        volume V | ringer V (0…1) · volume up | volume down · route speaker|headphones|bluetooth|external · \
        silent on|off · lock | unlock · mic on|off (off = muted) · other on [silence] [CLIENT…] | other off · \
         remote play|pause|togglePlayPause|nextTrack|previousTrack|stop · \
        call begin | call end · play|pause|stop SOURCE · gain SOURCE G (0…1) · pan SOURCE P (−1…1) · \
        rate SOURCE R (0.25…4) · crossfade SOURCE FROM SECONDS · activate|deactivate SESSION
        """

    /// Parse one line (words separated by spaces; case matters for ids). Throws a
    /// `ControlLineError` naming what is wrong; an empty line or a `#` comment gives nil.
    public static func parse(_ line: String) throws(ControlLineError) -> ControlLine? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first, !verb.hasPrefix("#") else { return nil }
        func argument(_ what: String) throws(ControlLineError) -> String {
            guard words.count == 2 else { throw ControlLineError("\"\(verb)\" takes one \(what)") }
            return words[1]
        }
        func level(_ text: String) throws(ControlLineError) -> Double {
            guard let v = Double(text), v.isFinite, (0...1).contains(v) else {
                throw ControlLineError("\"\(verb)\": a level in 0…1, got \"\(text)\"")
            }
            return v
        }
        /// `VERB SOURCE VALUE` with VALUE a finite number in `range` (`what` names it).
        func sourceValue(_ what: String, in range: ClosedRange<Double>) throws(ControlLineError) -> (String, Double) {
            guard words.count == 3 else { throw ControlLineError("\"\(verb)\" takes a source id and a \(what)") }
            guard let v = Double(words[2]), v.isFinite, range.contains(v) else {
                throw ControlLineError(
                    "\"\(verb)\": a \(what) in \(JSONWriter.number(range.lowerBound))…\(JSONWriter.number(range.upperBound)), got \"\(words[2])\""
                )
            }
            return (words[1], v)
        }
        func onOff(_ text: String) throws(ControlLineError) -> Bool {
            switch text {
            case "on": return true
            case "off": return false
            default: throw ControlLineError("\"\(verb)\": on or off, got \"\(text)\"")
            }
        }
        switch verb {
        case "volume":
            let a = try argument("level or up/down")
            if a == "up" { return ControlLine(action: .device(.volumeUp)) }
            if a == "down" { return ControlLine(action: .device(.volumeDown)) }
            return ControlLine(action: .device(.volume(try level(a))))
        case "ringer": return ControlLine(action: .device(.ringerVolume(try level(try argument("level")))))
        case "route":
            let a = try argument("route")
            guard let route = Route(rawValue: a) else {
                throw ControlLineError("unknown route \"\(a)\"; expected one of: \(Route.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return ControlLine(action: .device(.route(route, reason: nil)))
        case "silent": return ControlLine(action: .device(.silentSwitch(try onOff(try argument("on/off")))))
        case "other":
            guard words.count >= 2 else { throw ControlLineError("\"other\" takes on or off (then silence and client names)") }
            let playing = try onOff(words[1])
            var rest = Array(words.dropFirst(2))
            let silence = rest.first == "silence"
            if silence { rest.removeFirst() }
            guard playing || rest.isEmpty && !silence else {
                throw ControlLineError("\"other off\" takes nothing after it")
            }
            return ControlLine(action: .device(.otherAudio(OtherAudio(playing: playing, silenceSecondary: silence, clients: rest))))
        case "mic": return ControlLine(action: .device(.micMuted(!(try onOff(try argument("on/off"))))))
        case "lock", "unlock":
            guard words.count == 1 else { throw ControlLineError("\"\(verb)\" takes nothing after it") }
            return ControlLine(action: .device(verb == "lock" ? .lock : .unlock))
        case "remote":
            let a = try argument("command")
            guard let command = RemoteCommand(rawValue: a) else {
                throw ControlLineError(
                    "unknown remote command \"\(a)\"; expected one of: \(RemoteCommand.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return ControlLine(action: .remote(command))
        case "call":
            switch try argument("begin/end") {
            case "begin": return ControlLine(action: .phoneCallBegin(audio: nil))
            case "end": return ControlLine(action: .phoneCallEnd)
            case let other: throw ControlLineError("\"call\": begin or end, got \"\(other)\"")
            }
        case "play": return ControlLine(action: .source(try argument("source id"), .play))
        case "pause": return ControlLine(action: .source(try argument("source id"), .pause))
        case "stop": return ControlLine(action: .source(try argument("source id"), .stop))
        case "gain":
            let (id, v) = try sourceValue("gain", in: 0...1)
            return ControlLine(action: .source(id, .setGain(v, ramp: nil)))
        case "pan":
            let (id, v) = try sourceValue("pan", in: -1...1)
            return ControlLine(action: .source(id, .setPan(v, ramp: nil)))
        case "rate":
            let (id, v) = try sourceValue("rate", in: 0.25...4)
            return ControlLine(action: .source(id, .setRate(v, ramp: nil)))
        case "crossfade":
            guard words.count == 4 else { throw ControlLineError("\"crossfade\" takes a source id, the source it fades from and seconds") }
            guard let seconds = Double(words[3]), seconds.isFinite, seconds > 0 else {
                throw ControlLineError("\"crossfade\": a duration in seconds > 0, got \"\(words[3])\"")
            }
            return ControlLine(action: .source(words[1], .crossfade(from: words[2], duration: seconds)))
        case "activate": return ControlLine(action: .session(try argument("session id"), .activate()))
        case "deactivate": return ControlLine(action: .session(try argument("session id"), .deactivate(notifyOthers: true)))
        default: throw ControlLineError("unknown command \"\(verb)\"; expected: \(help)")
        }
    }
}

/// A control line that cannot be applied: the reason, for one line on stderr. Value type. Any thread.
public struct ControlLineError: Error, CustomStringConvertible {
    /// What is wrong with the line.
    public var description: String
    init(_ description: String) { self.description = description }
}
