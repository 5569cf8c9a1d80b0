import Foundation
import Glibc
import Testing
import Tutti
import TuttiPipeWire
import TuttiTestSupport

/// `streams` `.perSession` (`--streams per-session`): a PipeWire stream per session, named
/// after it, with its role from the table or its override, against a private daemon; read with
/// `pw-dump`, as the desktop sees it.
@Suite(.serialized) struct PipeWireSessionStreamTests {
    static let pwDump = Tool.find("pw-dump")

    /// Each playback node of the daemon: its `node.name` → its properties (`pw-dump`).
    static func streams(_ server: PipeWireServer) throws -> [String: [String: String]] {
        let result = try Tool.run([pwDump!], environment: server.clientEnvironment)
        guard let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] else { return [:] }
        var nodes: [String: [String: String]] = [:]
        for object in objects where object["type"] as? String == "PipeWire:Interface:Node" {
            guard let info = object["info"] as? [String: Any], let props = info["props"] as? [String: Any],
                props["media.class"] as? String == "Stream/Output/Audio", let name = props["node.name"] as? String
            else { continue }
            nodes[name] = props.compactMapValues { $0 as? String }
        }
        return nodes
    }

    /// Through the library: a playback session (Music), an ambient one (Game), a
    /// playAndRecord one (Communication) and a playback one overridden to Movie get a stream
    /// each ("tutti-ID", `media.name` the id), next to main's.
    @Test(.enabled(if: PipeWireServer.isAvailable && pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func eachSessionHasAStreamWithItsRole() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try AudioEngine()
        let song = try engine.makeSession(SessionConfiguration(id: "song", category: .playback))
        let world = try engine.makeSession(SessionConfiguration(id: "world", category: .ambient))
        _ = try engine.makeSession(SessionConfiguration(id: "chat", category: .playAndRecord))
        let film = try engine.makeSession(SessionConfiguration(id: "film", category: .playback, mediaRole: .movie))
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = PipeWireServer.sink
        configuration.watchDesktop = false
        configuration.streams = .perSession
        try engine.startOutput(configuration, pipeWireRemote: server.socket)
        defer { engine.stopOutput() }
        var nodes: [String: [String: String]] = [:]
        let expected = ["tutti-song": "Music", "tutti-world": "Game", "tutti-chat": "Communication", "tutti-film": "Movie"]
        #expect(
            eventually(10) {
                nodes = (try? Self.streams(server)) ?? [:]
                return expected.keys.allSatisfy { nodes[$0] != nil }
            }, "\(nodes.keys.sorted())")
        print("pw-dump, per-session streams:", nodes.keys.sorted().map { "\($0) \(nodes[$0]?["media.role"] ?? "-")" })
        for (name, role) in expected {
            #expect(nodes[name]?["media.role"] == role, "\(name): \(nodes[name] ?? [:])")
            #expect(nodes[name]?["media.name"] == String(name.dropFirst("tutti-".count)))
            #expect(nodes[name]?["application.name"] == "tutti")
        }
        #expect(nodes["tutti"] != nil)
        #expect(nodes.keys.filter { $0.hasPrefix("tutti") }.count == expected.count + 1, "\(nodes.keys.sorted())")

        // A role set while playing is announced on the session's own stream; back to the
        // table (nil): Music for a playback session; a category change moves the role too.
        try film.setMediaRole(.game)
        #expect(eventually(10) { (try? Self.streams(server))?["tutti-film"]?["media.role"] == "Game" })
        try film.setMediaRole(nil)
        #expect(eventually(10) { (try? Self.streams(server))?["tutti-film"]?["media.role"] == "Music" })
        try world.setCategory(.playAndRecord)
        #expect(eventually(10) { (try? Self.streams(server))?["tutti-world"]?["media.role"] == "Communication" })
        nodes = (try? Self.streams(server)) ?? [:]
        print("pw-dump after the role changes:", nodes.keys.sorted().map { "\($0) \(nodes[$0]?["media.role"] ?? "-")" })
        // Main's role stays what it announced at start.
        #expect(nodes["tutti"]?["media.role"] == "Music")

        // A session removed: its stream leaves the graph once its bus has gone; the others and
        // main play on (no reconnect).
        try song.remove()
        #expect(eventually(10) { (try? Self.streams(server))?["tutti-song"] == nil })
        nodes = (try? Self.streams(server)) ?? [:]
        print("pw-dump after removing song:", nodes.keys.sorted())
        #expect(Set(nodes.keys.filter { $0.hasPrefix("tutti") }) == ["tutti", "tutti-chat", "tutti-film", "tutti-world"])
        // Sessions made while playing get a stream each (from the spares), with their role; a
        // new "song" (the removed one's name, maybe its bus slot) gets a new stream; a
        // recording session none.
        _ = try engine.makeSession(SessionConfiguration(id: "late", category: .ambient))
        _ = try engine.makeSession(SessionConfiguration(id: "song", category: .playback, mediaRole: .notification))
        _ = try engine.makeSession(SessionConfiguration(id: "mic", category: .record))
        #expect(
            eventually(10) {
                nodes = (try? Self.streams(server)) ?? [:]
                return nodes["tutti-late"]?["media.role"] == "Game" && nodes["tutti-song"]?["media.role"] == "Notification"
            }, "\(nodes)")
        print("pw-dump after making late and song:", nodes.keys.sorted().map { "\($0) \(nodes[$0]?["media.role"] ?? "-")" })
        #expect(nodes["tutti-mic"] == nil)
        #expect(engine.isOutputRunning)
        #expect(!engine.pollEvents().contains { if case .deviceLost = $0.kind { true } else { false } })
    }

    /// Through the library: sessions made and removed while playing, twice as many as
    /// `PipeWireOutput.spareSessionStreams`, one made and the one before removed each round:
    /// each live session has its stream with its role, each removed one's is gone (a removed
    /// session's feed is reused: none is left to main's stream).
    @Test(.enabled(if: PipeWireServer.isAvailable && pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func sessionsMadeAndRemovedPastTheSparesKeepTheirStreams() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try AudioEngine()
        _ = try engine.makeSession(SessionConfiguration(id: "song", category: .playback))
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = PipeWireServer.sink
        configuration.watchDesktop = false
        configuration.streams = .perSession
        try engine.startOutput(configuration, pipeWireRemote: server.socket)
        defer { engine.stopOutput() }
        var previous: SessionHandle?
        var nodes: [String: [String: String]] = [:]
        for i in 0..<(2 * PipeWireOutput.spareSessionStreams) {
            let category: Category = i % 2 == 0 ? .ambient : .playAndRecord
            let session = try engine.makeSession(SessionConfiguration(id: "late\(i)", category: category))
            try previous?.remove()
            let role = i % 2 == 0 ? "Game" : "Communication"
            let settled = eventually(10) {
                nodes = (try? Self.streams(server)) ?? [:]
                return nodes["tutti-late\(i)"]?["media.role"] == role && (i == 0 || nodes["tutti-late\(i - 1)"] == nil)
            }
            #expect(settled, "round \(i): \(nodes.keys.sorted())")
            previous = session
        }
        #expect(Set(nodes.keys.filter { $0.hasPrefix("tutti") }) == ["tutti", "tutti-song", "tutti-late15"], "\(nodes.keys.sorted())")
        #expect(engine.isOutputRunning)
    }

    /// An engine with a limiter cannot give each session its share (the limiter acts on the
    /// sum): `invalidArgument` naming it; ALSA and JACK refuse per-session streams.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func perSessionIsRefusedWhereItCannotHold() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        var engineConfiguration = AudioEngineConfiguration()
        engineConfiguration.limiter = LimiterSettings()
        let engine = try AudioEngine(configuration: engineConfiguration)
        _ = try engine.makeSession(SessionConfiguration(id: "song", category: .playback))
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = PipeWireServer.sink
        configuration.watchDesktop = false
        configuration.streams = .perSession
        do {
            try engine.startOutput(configuration, pipeWireRemote: server.socket)
            engine.stopOutput()
            Issue.record("a limiter with per-session streams was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("limiter"), "\(error.message)")
        }
        #expect(!engine.isOutputRunning)
        for backend in [OutputConfiguration.Backend.alsa, .jack] {
            let plain = try AudioEngine()
            var c = OutputConfiguration()
            c.backend = backend
            c.streams = .perSession
            #expect(throws: TuttiError.self) { try plain.startOutput(c) }
            do { try plain.startOutput(c) } catch { #expect(error.message.contains("per-session"), "\(error.message)") }
        }
    }
}

extension PlayPipeWireCommandTests {
    /// `tutti play --backend pipewire --streams per-session`: the scene's sessions of output
    /// each get a stream with its role (the table, or the scene's "mediaRole"); a recording
    /// session gets none.
    @Test(
        .enabled(if: PipeWireServer.isAvailable && PipeWireSessionStreamTests.pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func playGivesEachSessionAStream() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-sessions")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = """
            {"duration": 20,
             "sessions": [{"id": "world", "category": "ambient"}, {"id": "song", "category": "playback"},
                          {"id": "voice", "category": "playback", "mediaRole": "Communication"}],
             "sources": [{"id": "wind", "session": "world", "tone": {"frequency": 300, "amplitude": 0.1}, "loop": true},
                         {"id": "tune", "session": "song", "tone": {"frequency": 500, "amplitude": 0.1}, "loop": true}],
             "events": [{"at": 0.0, "session": "world", "action": "activate"}, {"at": 0.0, "source": "wind", "action": "play"},
                        {"at": 0.0, "session": "song", "action": "activate"}, {"at": 0.0, "source": "tune", "action": "play"}]}
            """
        try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in server.clientEnvironment { env[k] = v }
        let play = try spawnChild(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--no-mpris",
                "--streams", "per-session",
            ],
            environment: env.map { "\($0.key)=\($0.value)" }, stdout: dir + "/out", stderr: .file(dir + "/err"))
        defer {
            kill(play, SIGKILL)
            _ = waitForChild(play)
        }
        let expected = ["tutti-world": "Game", "tutti-song": "Music", "tutti-voice": "Communication"]
        var nodes: [String: [String: String]] = [:]
        #expect(
            eventually(20) {
                nodes = (try? PipeWireSessionStreamTests.streams(server)) ?? [:]
                return expected.keys.allSatisfy { nodes[$0] != nil }
            }, "\(nodes.keys.sorted()) \((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")
        for (name, role) in expected { #expect(nodes[name]?["media.role"] == role, "\(name): \(nodes[name] ?? [:])") }
        // The report names each session stream (a recording session would have none).
        let err = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        for session in ["world", "song", "voice"] { #expect(err.contains("session stream \(session) on"), "\(err)") }
    }

    /// A scene with a limiter cannot play a stream per session: exit 1 with the library's
    /// message, nothing left playing.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func playRefusesPerSessionStreamsWithALimiter() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-sessions-limiter")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = """
            {"duration": 2, "engine": {"limiter": {"ceiling": -1}},
             "sessions": [{"id": "song", "category": "playback"}],
             "sources": [{"id": "tune", "session": "song", "tone": {"frequency": 500, "amplitude": 0.1}, "loop": true}],
             "events": [{"at": 0.0, "session": "song", "action": "activate"}, {"at": 0.0, "source": "tune", "action": "play"}]}
            """
        try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let result = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--no-mpris",
                "--streams", "per-session",
            ], environment: server.clientEnvironment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("streams per-session: the engine has a master effect chain or a limiter"), "\(result.stderr)")
    }

    /// `--streams per-session` with ALSA or JACK is a usage error (exit 64) naming the option.
    @Test func perSessionStreamsAreForPipeWire() throws {
        for backend in ["alsa", "jack"] {
            let result = try Tool.run([Tool.tutti!, "play", "scene.json", "--backend", backend, "--streams", "per-session"])
            #expect(result.status == 64, "\(backend): \(result.stderr)")
            #expect(result.stderr.contains("--streams per-session is for --backend pipewire"), "\(result.stderr)")
        }
    }
}
