import Testing
import TuttiPolicy

@Suite("events log entries")
struct JournalTests {
    /// One entry of every type, with the keys the scene format lists, in order.
    static let samples: [(JournalEntry, [String])] = [
        (.sessionActivated(session: "a", category: .playback), ["session", "category"]),
        (.sessionDeactivated(session: "a", notifyOthers: true), ["session", "notifyOthers"]),
        (.activationFailed(session: "a", error: .insufficientPriority(session: "a")), ["session", "error"]),
        (.interruptionBegan(session: "a", reason: .otherSession, by: "b"), ["session", "reason", "by"]),
        (.interruptionEnded(session: "a", shouldResume: false), ["session", "shouldResume"]),
        (.duckingBegan(session: "a", by: "b", rule: .rule(2)), ["session", "by", "rule"]),
        (.duckingEnded(session: "a"), ["session"]),
        (.silenced(session: "a", reason: .locked), ["session", "reason"]),
        (.unsilenced(session: "a"), ["session"]),
        (.routeChange(reason: .override, previous: .speaker, current: .bluetooth), ["reason", "previous", "current"]),
        (.sourceStarted(source: "x", reason: .play), ["source", "reason"]),
        (.sourcePaused(source: "x", reason: .routeChange), ["source", "reason"]),
        (.sourceEnded(source: "x"), ["source"]),
        (.voiceStolen(source: "x", by: "y"), ["source", "by"]),
        (.voiceRefused(source: "x"), ["source"]),
        (.remoteCommand(command: .togglePlayPause, session: "a"), ["command", "session"]),
        (.remoteCommandUnhandled(command: .stop), ["command"]),
        (.systemSoundPlayed(sound: "click"), ["sound"]),
        (.vibrate(sound: "click"), ["sound"]),
        (.systemSoundSuppressed(sound: "click", reason: .recording), ["sound", "reason"]),
        (.volumeChanged(target: .ringer, value: 0.5), ["target", "value"]),
    ]

    @Test("every type of the events log has a case, with the events log's fields in order")
    func typesAndFields() {
        let specTypes = [
            "sessionActivated", "sessionDeactivated", "activationFailed", "interruptionBegan",
            "interruptionEnded", "duckingBegan", "duckingEnded", "silenced", "unsilenced", "routeChange",
            "sourceStarted", "sourcePaused", "sourceEnded", "voiceStolen", "voiceRefused", "remoteCommand", "remoteCommandUnhandled",
            "systemSoundPlayed", "vibrate", "systemSoundSuppressed", "volumeChanged",
        ]
        #expect(Self.samples.map(\.0.type) == specTypes)
        for (entry, keys) in Self.samples {
            #expect(entry.fields.map(\.key) == keys, "\(entry.type)")
        }
    }

    @Test("field values: strings are the scene-format names, absent interrupters are null")
    func values() {
        let began = JournalEntry.interruptionBegan(session: "music", reason: .phoneCall, by: nil)
        #expect(began.fields.map(\.value) == [.string("music"), .string("phoneCall"), .null])
        let failed = JournalEntry.activationFailed(session: "m", error: .insufficientPriority(session: "m"))
        #expect(failed.fields.map(\.value) == [.string("m"), .string("insufficientPriority")])
        let volume = JournalEntry.volumeChanged(target: .system, value: 0.5625)
        #expect(volume.fields.map(\.value) == [.string("system"), .number(0.5625)])
        let ended = JournalEntry.interruptionEnded(session: "m", shouldResume: true)
        #expect(ended.fields.last?.value == .bool(true))
        #expect(JournalEntry.duckingBegan(session: "m", by: "n", rule: .rule(3)).fields.last?.value == .number(3))
        #expect(JournalEntry.duckingBegan(session: "m", by: "n", rule: .session).fields.last?.value == .string("session"))
        #expect(JournalEntry.duckingBegan(session: "m", by: "n", rule: .engine).fields.last?.value == .string("engine"))
        let route = JournalEntry.routeChange(reason: .oldDeviceUnavailable, previous: .headphones, current: .speaker)
        #expect(route.fields.map(\.value) == [.string("oldDeviceUnavailable"), .string("headphones"), .string("speaker")])
    }

    @Test("raw values are exactly the scene format's names")
    func rawValues() {
        #expect(
            Category.allCases.map(\.rawValue) == [
                "soloAmbient", "ambient", "playback", "record", "playAndRecord",
                "audioProcessing", "multiRoute",
            ])
        #expect(
            CategoryOption.allCases.map(\.rawValue) == [
                "mixWithOthers", "duckOthers",
                "interruptSpokenAudioAndMixWithOthers", "allowBluetooth",
                "defaultToSpeaker",
            ])
        #expect(
            Mode.allCases.map(\.rawValue) == [
                "default", "spokenAudio", "voiceChat", "videoChat", "gameChat",
                "measurement", "moviePlayback", "voicePrompt",
            ])
        #expect(Route.allCases.map(\.rawValue) == ["speaker", "headphones", "bluetooth", "external"])
        #expect(
            RemoteCommand.allCases.map(\.rawValue) == [
                "play", "pause", "togglePlayPause", "nextTrack",
                "previousTrack", "stop",
            ])
        // `ducked`, `transientExclusive`, `interaction`: issue 22 (pause instead of duck,
        // exclusive focus, the interaction table).
        #expect(
            InterruptionReason.allCases.map(\.rawValue) == ["otherSession", "phoneCall", "spokenAudio", "builtInMicMuted", "ducked"])
        #expect(
            SilenceReason.allCases.map(\.rawValue) == [
                "silentSwitch", "locked", "background", "recording", "transientExclusive", "interaction",
            ])
    }

    @Test("the default route-change reason follows the scene format")
    func defaultRouteReason() {
        #expect(RouteChangeReason.default(from: .speaker, to: .headphones) == .newDeviceAvailable)
        #expect(RouteChangeReason.default(from: .headphones, to: .bluetooth) == .newDeviceAvailable)
        #expect(RouteChangeReason.default(from: .headphones, to: .speaker) == .oldDeviceUnavailable)
        #expect(RouteChangeReason.default(from: .bluetooth, to: .speaker) == .oldDeviceUnavailable)
    }
}
