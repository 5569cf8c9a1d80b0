import Foundation
import Synchronization
import Tutti
import TuttiEngine

/// What the sessions of a scene played live record (their `recordTo`): a thread of normal
/// priority drains each recording input's tap (filled by the render thread: the captured
/// frames while the input plays, silence while the session is muted, interrupted, paused
/// or inactive) every 10 ms into a WAV written to a temporary file; `finish` drains the rest
/// and moves every file into place together, `discard` leaves the destinations untouched.
///
/// Thread: the control thread creates it and calls `start`, `finish` and `discard`; the
/// writers and the first write error live in a `Mutex` the recorder thread holds while it
/// drains (every 10 ms) and the control thread while it stops, commits or discards.
public final class LiveRecorder: Sendable {
    /// One recording: the session, its WAV, the live input it records. Value type: any thread.
    public struct Recording: Sendable {
        /// The session's id in the scene.
        public var session: String
        /// The WAV written (the scene's `recordTo`, resolved against the scene's folder).
        public var path: String
        /// The live engine's input source whose tap is drained.
        public var input: InputSource
    }

    /// The recordings, in the scene's session order (empty: the scene records nothing). Any thread (set at creation).
    public let recordings: [Recording]
    /// What the recorder thread and the control thread share.
    private struct State: ~Copyable {
        var writers: [AtomicWAVWriter]
        /// The first write error (the recorder stops writing at it).
        var failure: Error?
        /// The recorder thread between `start` and its join.
        var thread: pthread_t?
    }
    private let state: Mutex<State>
    private let stopFlag = Atomic<Bool>(false)

    /// Creates the temporary WAVs (at the scene's rate, the input's channels, the scene's
    /// `engine.output` format) for each session of `playback` with a `recordTo` and an input.
    /// Errors name the path. Control thread.
    public init(playback: ScenePlayback) throws {
        let scene = playback.scene
        var recordings: [Recording] = []
        var writers: [AtomicWAVWriter] = []
        do {
            for s in scene.sessions {
                guard let file = scene.recordTo[s.id], let input = playback.liveInput(session: s.id) else { continue }
                let path = scene.resolve(file)
                if recordings.contains(where: { $0.path == path }) {
                    throw SceneError(path, "session \"\(s.id)\" records to the same file as another session")
                }
                writers.append(
                    try AtomicWAVWriter(
                        path: path, sampleRate: scene.engine.sampleRate, channelCount: input.channelCount, format: scene.engine.output,
                        frameCount: playback.totalFrames))
                recordings.append(Recording(session: s.id, path: path, input: input))
            }
        } catch {
            for w in writers { w.discard() }
            throw error
        }
        self.recordings = recordings
        state = Mutex(State(writers: writers, failure: nil, thread: nil))
    }

    /// Start the recorder thread (nothing to do without recordings); joined by `finish` or
    /// `discard`. Throws when the thread cannot be started. Control thread.
    public func start() throws {
        guard !recordings.isEmpty else { return }
        try state.withLock { state in
            guard state.thread == nil else { return }
            state.thread = try startThread(name: "tutti-recorder") { [self] in
                var scratch = [Float](repeating: 0, count: 8_192)
                while !stopFlag.load(ordering: .acquiring) {
                    drainAll(&scratch)
                    usleep(10_000)
                }
                drainAll(&scratch)
            }
        }
    }

    private func drainAll(_ scratch: inout [Float]) {
        state.withLock { state in
            guard state.failure == nil else { return }
            do {
                try drain(into: state.writers, &scratch)
            } catch {
                state.failure = error
            }
        }
    }

    private func drain(into writers: [AtomicWAVWriter], _ scratch: inout [Float]) throws {
        do {
            for (r, w) in zip(recordings, writers) {
                while true {
                    let frames = scratch.withUnsafeMutableBufferPointer { r.input.readRecorded(into: $0) }
                    if frames == 0 { break }
                    try scratch.withUnsafeBufferPointer {
                        try w.write(UnsafeBufferPointer(rebasing: $0[0..<frames * r.input.channelCount]))
                    }
                }
            }
        }
    }

    /// Frames each recording holds so far (after `finish`: its length). Any thread but a real-time one (takes the state's lock).
    public var framesWritten: [Int] { state.withLock { $0.writers.map(\.framesWritten) } }

    /// Recorded frames lost because the recorder fell behind the render thread, summed.
    public var droppedFrames: Int { recordings.reduce(0) { $0 + $1.input.droppedRecordedFrames } }

    /// Stop the thread (after the output stopped: nothing more is recorded), drain what is
    /// left and move every WAV into place together. Throws the first write error (and then
    /// discards them all). Control thread.
    public func finish() throws {
        stopRecorder()
        try state.withLock { state in
            do {
                if let failure = state.failure { throw failure }
                let writers = state.writers
                try TemporaryFiles.together { held in for w in writers { try w.commit(in: &held) } }
            } catch {
                for w in state.writers { w.discard() }
                throw error
            }
        }
    }

    /// Stop the thread and drop the temporary files; the destinations stay as they were. Control thread.
    public func discard() {
        stopRecorder()
        state.withLock { state in for w in state.writers { w.discard() } }
    }

    /// Joins the recorder thread (outside the lock: it takes the lock to drain).
    private func stopRecorder() {
        guard let t = state.withLock({ $0.thread }) else { return }
        stopFlag.store(true, ordering: .releasing)
        pthread_join(t, nil)
        state.withLock { $0.thread = nil }
    }
}

extension ScenePlayback {
    /// The live engine's input sources: scene id, session and the source a backend captures into. Control thread.
    public var liveInputs: [(id: String, session: String, source: InputSource)] {
        liveRenderer.inputs.map { ($0.sceneID, $0.session, $0.source) }
    }

    /// The live input of `session` (the first, as the offline render records it), nil: none.
    func liveInput(session: String) -> InputSource? {
        liveRenderer.inputs.first { $0.session == session }?.source
    }
}
