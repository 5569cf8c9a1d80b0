import Foundation
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
            configuration.watchOtherAudio = false
            try engine.startOutput(configuration, pipeWireRemote: server.socket)
            defer { engine.stopOutput() }
            let nodes = try server.cli(["ls", "Node"]).stdout
            // Each node's properties, from its "id N" line to the next; ours is named "tutti".
            var blocks: [[String]] = []
            for line in nodes.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("id ") { blocks.append([]) }
                if !blocks.isEmpty { blocks[blocks.count - 1].append(text) }
            }
            let ours = blocks.filter { $0.contains("node.name = \"tutti\"") }
            #expect(ours.count == 1, "\(nodes)")
            #expect(ours.first?.contains("media.role = \"\(role)\"") == true, "\(ours)")
        }
    }
}
