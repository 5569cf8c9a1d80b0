import CPipeWire
import Testing
import TuttiTestSupport

/// The C shim's streams are named by id (`tpw_id`), looked up in its table of open streams on
/// each call: against a private daemon, an id that was closed (or never opened) finds no
/// stream — every call fails as for a closed stream instead of reaching freed memory, and a
/// second close is ignored — and ids are never reused.
@Suite(.serialized) struct PipeWireStreamIdTests {
    /// Opens an unconnected stream (nothing renders: its callback writes silence) on `server`.
    static func open(_ server: PipeWireServer) -> (id: tpw_id, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let id = "tutti-id-test".withCString { name in
            "Music".withCString { role in
                server.socket.withCString { remote in
                    var config = tpw_config(
                        node_name: name, media_role: role, target: nil, latency: nil, remote: remote, rate: 48_000, channels: 2,
                        render: { _, samples, frames in samples?.update(repeating: 0, count: Int(frames) * 2) }, user: nil,
                        capture_channels: 0, capture_target: nil, capture_monitor: 0, capture: nil, bus_count: 0, buses: nil,
                        bus_render: nil, gap: nil, bus_capacity: 0)
                    return tpw_open(&config, &message, message.count)
                }
            }
        }
        return (id, Self.text(message))
    }

    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aClosedStreamsIdFindsNoStream() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (first, failure) = Self.open(server)
        try #require(first != 0, "tpw_open: \(failure)")
        var message = [CChar](repeating: 0, count: 256)
        #expect(tpw_state(first, &message, message.count) == 0, "unconnected: \(Self.text(message))")
        tpw_close(first)
        #expect(tpw_state(first, &message, message.count) == -1)
        #expect(Self.text(message) == "the stream is closed")
        #expect(tpw_bus_state(first, 0, nil, 0) == -1 && tpw_capture_state(first) == -1)
        #expect(tpw_node_id(first) == UInt32.max)
        var frames: Int64 = 0
        var rate: UInt32 = 0
        #expect(tpw_latency(first, &frames, &rate) == -1)
        #expect(tpw_connect(first, &message, message.count) == -1)
        tpw_test_stall(first, 1_000) // no stream: nothing happens
        tpw_close(first) // closed already: ignored
        let second = Self.open(server).id
        #expect(second != 0 && second != first, "ids are not reused: \(first) then \(second)")
        #expect(tpw_state(second, nil, 0) == 0)
        tpw_close(second)
        #expect(tpw_state(0, nil, 0) == -1, "0 is no stream")
    }

    /// A C string buffer's text (up to its NUL).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
