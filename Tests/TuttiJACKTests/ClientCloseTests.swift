import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiJACK

/// What the wrapped `jack_client_close` below saw: which of the watched threads (a client's
/// libjack notification thread) still existed when it was called.
private enum CloseWatch {
    static let state = Mutex<(watched: [Int32], aliveAtClose: [[Int32]])>(([], []))
    nonisolated(unsafe) static var real: (@convention(c) (OpaquePointer?) -> Int32)?
}

private let closeWatchingThreads: @convention(c) (OpaquePointer?) -> Int32 = { h in
    CloseWatch.state.withLock { s in
        if !s.watched.isEmpty { s.aliveAtClose.append(s.watched.filter { access("/proc/self/task/\($0)", F_OK) == 0 }) }
    }
    return CloseWatch.real!(h)
}

/// The engine frames an output had rendered when `jack_client_close` was called for it.
private enum FramesAtClose {
    nonisolated(unsafe) static var output: JACKOutput?
    nonisolated(unsafe) static var frames: [Int64] = []
}

private let closeNotingFrames: @convention(c) (OpaquePointer?) -> Int32 = { h in
    if let output = FramesAtClose.output { FramesAtClose.frames.append(output.framesRendered) }
    return CloseWatch.real!(h)
}

extension JACKTests {
    /// libjack (jack2) ends a client's notification thread with an asynchronous cancel when the
    /// client closes; cancelled inside a notification (another client leaving), it keeps
    /// libjack's process-wide synchro lock and the close waits on it for good. A fresh-clone
    /// test run hung that way once: the reconnect after a stopped server (SIGTERM) closed the
    /// lost client while the server, closing down, still sent it notifications.
    @Suite(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
    struct ClientCloseTests {
        @Test func aLostServersClientIsClosedOnlyOnceLibjacksNotificationThreadEnded() throws {
            let server = try JACKServer()
            let graph = try TestGraph()
            let collector = Collector()
            var functions = try JACKFunctions.system
            CloseWatch.real = functions.client_close
            functions.client_close = closeWatchingThreads
            var config = JACKOutputConfiguration(serverName: server.name)
            config.reconnect.timeout = .seconds(0.5)
            config.reconnect.backoffInitial = .seconds(0.05)
            let client = try JACKClient(configuration: config, functions: functions)
            let output = try JACKOutput(engine: graph.engine, client: client, log: collector.log, onEvent: collector.onEvent)
            try output.start()
            defer {
                output.stop()
                CloseWatch.state.withLock { $0 = ([], []) }
            }
            // The thread is found (it ran the thread-init callback while handling the
            // activation) and, between notifications, waits in read.
            let ids = client.notificationThreadIDs
            #expect(ids.count == 1, "libjack's threads that are not the process thread: \(ids)")
            let idleBy = Date().addingTimeInterval(2)
            while !ids.allSatisfy({ JACKClient.blockedInRead(threadID: $0) }), Date() < idleBy { usleep(1_000) }
            #expect(ids.allSatisfy { JACKClient.blockedInRead(threadID: $0) }, "the notification thread is not waiting in read")
            CloseWatch.state.withLock { $0.watched = ids }

            server.kill(SIGTERM)
            #expect(collector.waitFor(5) { $0.contains(where: \.isGaveUp) })
            let seen = CloseWatch.state.withLock { $0.aliveAtClose }
            #expect(seen.count == 1, "jack_client_close calls after the loss: \(seen.count)")
            #expect(seen.first == [], "the notification thread still ran when the lost client was closed")
            #expect(!collector.lines.contains { $0.contains("notification thread") }, "\(collector.lines)")
        }

        /// jack2 takes a closing client's ports off the graph one by one before it takes the
        /// client out, and cycles run in between: a cycle rendered then would capture silence
        /// from input ports already cut off (a fresh-clone run once failed on a silent period
        /// of a loopback recording, with no xrun). So `stop` ends rendering, and lets the cycle
        /// in progress end, before `jack_client_close`: the engine does not move past the
        /// frame it had reached when the close began.
        @Test(arguments: [false, true]) func renderingEndsBeforeTheClientCloses(drain: Bool) throws {
            let server = try JACKServer()
            let graph = try TestGraph()
            var functions = try JACKFunctions.system
            CloseWatch.real = functions.client_close
            functions.client_close = closeNotingFrames
            let client = try JACKClient(configuration: JACKOutputConfiguration(serverName: server.name), functions: functions)
            let output = try JACKOutput(engine: graph.engine, client: client, log: Collector().log)
            FramesAtClose.output = output
            defer {
                FramesAtClose.output = nil
                FramesAtClose.frames = []
            }
            try output.start()
            let deadline = Date().addingTimeInterval(5)
            while output.framesRendered < 4_800, Date() < deadline { usleep(1_000) }
            #expect(output.framesRendered >= 4_800)
            output.stop(drain: drain)
            let rendered = output.framesRendered
            #expect(FramesAtClose.frames == [rendered], "frames rendered when the client closed, and after the stop: \(rendered)")
        }
    }
}
