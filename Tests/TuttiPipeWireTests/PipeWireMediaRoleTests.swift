import Foundation
import Glibc
import Testing
import Tutti
import TuttiTestSupport

/// Main's stream announces the `media.role` its sessions share (`MediaRole.forMix(of:)`),
/// against a private daemon: what WirePlumber's role-based policy sees.
@Suite(.serialized) struct PipeWireMediaRoleTests {
    /// A game (two ambient sessions and a recorder) announces Game; a session whose
    /// `mediaRole` overrides the table announces that; a playback and an ambient session
    /// (roles that differ) announce Music.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func mainsStreamCarriesTheSessionsRole() throws {
        let cases: [([SessionConfiguration], String)] = [
            (
                [
                    SessionConfiguration(id: "music", category: .ambient), SessionConfiguration(id: "sfx", category: .soloAmbient),
                    SessionConfiguration(id: "mic", category: .record),
                ], "Game"
            ),
            ([SessionConfiguration(id: "call", category: .playback, mediaRole: .communication)], "Communication"),
            ([SessionConfiguration(id: "song", category: .playback), SessionConfiguration(id: "sfx", category: .ambient)], "Music"),
        ]
        for (sessions, role) in cases {
            // A daemon per case: no node of the case before can be mistaken for this one's.
            let server = try PipeWireServer()
            defer { server.stop() }
            let engine = try AudioEngine()
            for s in sessions { _ = try engine.makeSession(s) }
            var configuration = OutputConfiguration()
            configuration.backend = .pipewire
            configuration.device = PipeWireServer.sink
            configuration.watchDesktop = false
            try engine.startOutput(configuration, pipeWireRemote: server.socket)
            defer { engine.stopOutput() }
            let ours = try Self.nodeBlocks(server, named: "tutti")
            #expect(ours.count == 1, "\(ours)")
            #expect(ours.first?.contains("media.role = \"\(role)\"") == true, "\(ours)")
        }
    }

    /// A role set on the handle after the session was made (`SessionHandle.setMediaRole`) is
    /// what main's stream announces when the output starts: a playback session (Music by the
    /// table) set to Game announces Game.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aRoleSetOnTheHandleIsAnnouncedAtStart() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try AudioEngine()
        let song = try engine.makeSession(SessionConfiguration(id: "song", category: .playback))
        try song.setMediaRole(.game)
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = PipeWireServer.sink
        configuration.watchDesktop = false
        try engine.startOutput(configuration, pipeWireRemote: server.socket)
        defer { engine.stopOutput() }
        let ours = try Self.nodeBlocks(server, named: "tutti")
        #expect(ours.count == 1 && ours[0].contains("media.role = \"Game\""), "\(ours)")
    }

    /// The property lines of each node named `name` (`pw-cli ls Node`, from an "id N" line to
    /// the next).
    static func nodeBlocks(_ server: PipeWireServer, named name: String) throws -> [[String]] {
        var blocks: [[String]] = []
        for line in try server.cli(["ls", "Node"]).stdout.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("id ") { blocks.append([]) }
            if !blocks.isEmpty { blocks[blocks.count - 1].append(text) }
        }
        return blocks.filter { $0.contains("node.name = \"\(name)\"") }
    }
}

extension PlayPipeWireCommandTests {
    /// `tutti play --backend pipewire`: main's stream announces the role the scene's sessions
    /// share — an ambient session and a playback one whose `mediaRole` is Game: Game.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func mainsStreamCarriesTheScenesRole() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-role")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = """
            {"duration": 20,
             "sessions": [{"id": "world", "category": "ambient"}, {"id": "sfx", "category": "playback", "mediaRole": "Game"}],
             "sources": [{"id": "wind", "session": "world", "tone": {"frequency": 300, "amplitude": 0.1}, "loop": true}],
             "events": [{"at": 0.0, "session": "world", "action": "activate"}, {"at": 0.0, "source": "wind", "action": "play"}]}
            """
        try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in server.clientEnvironment { env[k] = v }
        let play = try spawnChild(
            [Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--no-mpris"],
            environment: env.map { "\($0.key)=\($0.value)" }, stdout: dir + "/out", stderr: .file(dir + "/err"))
        defer {
            kill(play, SIGKILL)
            _ = waitForChild(play)
        }
        var ours: [[String]] = []
        #expect(
            eventually(20) {
                ours = (try? PipeWireMediaRoleTests.nodeBlocks(server, named: "tutti")) ?? []
                return !ours.isEmpty
            })
        #expect(ours.count == 1 && ours[0].contains("media.role = \"Game\""), "\(ours)")
    }
}
