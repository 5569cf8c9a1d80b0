import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// The PipeWire `media.role` table (issue 20 item 2): a session's role from its category,
/// mode, content and accessibility flag, the scene's `mediaRole` override, and the role of a
/// stream carrying several sessions.
@Suite struct MediaRoleTests {
    /// The table of docs/backends.md ("Media roles"), row by row.
    @Test(arguments: [
        (Category.playback, Mode.default, ContentType?.none, false, MediaRole?.some(.music)),
        (.playback, .spokenAudio, .speech, false, .music),
        (.soloAmbient, .default, nil, false, .game),
        (.ambient, .default, nil, false, .game),
        (.playAndRecord, .default, nil, false, .communication),
        (.playback, .voiceChat, nil, false, .communication),
        (.ambient, .videoChat, nil, false, .communication),
        (.soloAmbient, .gameChat, nil, false, .communication),
        (.playback, .moviePlayback, nil, false, .movie),
        (.playback, .default, .movie, false, .movie),
        (.ambient, .default, .sonification, false, .notification),
        (.playback, .voicePrompt, nil, false, .notification),
        (.multiRoute, .default, nil, false, .production),
        (.playback, .measurement, nil, false, .test),
        (.playback, .voiceChat, nil, true, .accessibility),
        (.record, .default, nil, false, nil),
        (.audioProcessing, .voiceChat, nil, false, nil),
    ])
    func theTableMapsEachSession(category: Category, mode: Mode, content: ContentType?, accessibility: Bool, role: MediaRole?) {
        #expect(MediaRole.forSession(category: category, mode: mode, content: content, accessibility: accessibility) == role)
        let session = SessionConfiguration(id: "s", category: category, mode: mode, content: content, accessibility: accessibility)
        #expect(session.effectiveMediaRole == role)
    }

    /// The override wins over the table, except for a session without output (no stream).
    @Test func theOverrideWinsWhereThereIsAStream() {
        #expect(SessionConfiguration(id: "s", category: .playback, mediaRole: .game).effectiveMediaRole == .game)
        #expect(SessionConfiguration(id: "s", category: .record, mediaRole: .music).effectiveMediaRole == nil)
    }

    /// Raw values are PipeWire's property strings, all eleven known roles.
    @Test func rawValuesArePipeWiresNames() {
        #expect(
            MediaRole.allCases.map(\.rawValue) == [
                "Movie", "Music", "Camera", "Screen", "Communication", "Game", "Notification", "DSP", "Production", "Accessibility",
                "Test",
            ])
        #expect(MediaRole.systemSounds == .notification)
    }

    /// One stream for several sessions: the role they share, else Music; sessions without
    /// output do not count; no session at all is Music.
    @Test func aMixedStreamTakesTheSharedRoleElseMusic() {
        let game = SessionConfiguration(id: "a", category: .ambient)
        let effects = SessionConfiguration(id: "b", category: .soloAmbient)
        let mic = SessionConfiguration(id: "c", category: .record)
        let chat = SessionConfiguration(id: "d", category: .playAndRecord)
        #expect(MediaRole.forMix(of: [game, effects, mic]) == .game)
        #expect(MediaRole.forMix(of: [chat, mic]) == .communication)
        #expect(MediaRole.forMix(of: [game, chat]) == .music)
        #expect(MediaRole.forMix(of: [mic]) == .music)
        #expect(MediaRole.forMix(of: [SessionConfiguration]()) == .music)
        var overridden = chat
        overridden.mediaRole = .game
        #expect(MediaRole.forMix(of: [game, overridden]) == .game)
    }

    /// `sessions[].mediaRole` in a scene: decoded onto the session; absent is nil.
    @Test func theSceneKeyIsDecoded() throws {
        let json = """
            {"duration": 1,
             "sessions": [{"id": "m", "category": "playback"}, {"id": "g", "category": "playback", "mediaRole": "Game"}],
             "sources": [], "events": []}
            """
        let scene = try Scene.decode(json: json, baseDirectory: "/")
        #expect(scene.sessions.map(\.mediaRole) == [nil, .game])
        #expect(scene.sessions.map(\.effectiveMediaRole) == [.music, .game])
    }

    /// An unknown role is an error naming the JSON path, the nearest name and the known ones.
    @Test func anUnknownRoleNamesItsPath() {
        let json = """
            {"duration": 1,
             "sessions": [{"id": "m", "category": "playback"}, {"id": "g", "category": "playback", "mediaRole": "Musak"}],
             "sources": [], "events": []}
            """
        do {
            _ = try Scene.decode(json: json, baseDirectory: "/")
            Issue.record("decoded an unknown media role")
        } catch {
            let text = "\(error)"
            #expect(text.contains(#"sessions[1].mediaRole: unknown media role "Musak" (did you mean "Music"?)"#), "\(text)")
            #expect(text.contains("Movie, Music, Camera, Screen, Communication, Game, Notification, DSP, Production, Accessibility, Test"))
        }
        let lower = json.replacingOccurrences(of: "Musak", with: "music")
        #expect(throws: (any Error).self) { _ = try Scene.decode(json: lower, baseDirectory: "/") }
    }

    /// The session handle reads the role back: the override, else the table's for the category
    /// in force (it follows `setCategory`); nil without output; a removed session is `notFound`.
    @Test func theHandleReadsTheRole() throws {
        let engine = try AudioEngine()
        let game = try engine.makeSession(SessionConfiguration(id: "game", category: .ambient))
        let call = try engine.makeSession(SessionConfiguration(id: "call", category: .playback, mediaRole: .communication))
        #expect(try game.mediaRole == .game)
        #expect(try call.mediaRole == .communication)
        try game.setCategory(.playback)
        #expect(try game.mediaRole == .music)
        try game.setCategory(.record)
        #expect(try game.mediaRole == nil)
        try call.remove()
        #expect(throws: TuttiError.self) { _ = try call.mediaRole }
    }

    /// `setMediaRole` overrides the table's role and survives `setCategory`; nil goes back to
    /// the category's; a session without output keeps none; a removed session is `notFound`.
    @Test func theHandleSetsTheRole() throws {
        let engine = try AudioEngine()
        let song = try engine.makeSession(SessionConfiguration(id: "song", category: .playback))
        let mic = try engine.makeSession(SessionConfiguration(id: "mic", category: .record))
        #expect(try song.mediaRole == .music)
        try song.setMediaRole(.game)
        #expect(try song.mediaRole == .game)
        try song.setCategory(.playAndRecord)
        #expect(try song.mediaRole == .game)
        try song.setMediaRole(nil)
        #expect(try song.mediaRole == .communication)
        try mic.setMediaRole(.test)
        #expect(try mic.mediaRole == nil)
        try song.remove()
        let error = #expect(throws: TuttiError.self) { try song.setMediaRole(.game) }
        #expect(error?.code == .notFound)
    }
}
