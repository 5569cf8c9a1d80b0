import TuttiEngine
import TuttiPolicy

extension SessionHandle {
    /// An input source: captured audio (a microphone) the host feeds with
    /// `SourceHandle.write` — interleaved frames at the **engine rate** with `channelCount`
    /// channels (1 or 2), up to `capacityFrames` waiting. While it plays it takes one frame
    /// per rendered frame, mixed at its gain (monitoring; it starts at gain **0**: not heard
    /// until `setGain`); while it does not play (paused, its session interrupted — mic muted
    /// — or inactive) the frames are dropped. With `recordCapacityFrames` > 0 the render
    /// thread also copies what it captured into a recording ring of that many frames, from
    /// the first captured frame on, silence while it does not capture: read it with
    /// `SourceHandle.readRecorded` on a thread of yours (not the render thread) before it
    /// fills (a full ring drops frames, counted in `droppedRecordedFrames`). Only sessions of
    /// category `record` or `playAndRecord` capture: `state` otherwise; `invalidArgument` for
    /// a channel count or capacity out of range. Any thread.
    public func makeInputSource(
        channelCount: Int, capacityFrames: Int = 16_384, recordCapacityFrames: Int = 0, name: String? = nil
    ) throws(TuttiError) -> SourceHandle {
        let session = id
        let source = try engine.withCore { (s) throws(TuttiError) in
            let sessionName = try s.sessionName(session)
            let category = s.policy.session(sessionName)?.category
            guard category == .record || category == .playAndRecord else {
                throw TuttiError(
                    .state,
                    "session \"\(sessionName)\" is \(category?.rawValue ?? "unknown"); an input needs category record or playAndRecord")
            }
            return try s.addSource(
                .input(channelCount: channelCount, capacityFrames: capacityFrames, tapCapacityFrames: recordCapacityFrames),
                session: session, name: name, gain: 0)
        }
        return SourceHandle(engine: engine, id: source)
    }
}

extension SourceHandle {
    /// Inputs with a recording ring: move up to `output.count / channels` recorded frames
    /// (interleaved, engine rate, the input's channels) into `output`; returns the frames
    /// moved (0 when nothing waits). The recording is time-aligned: frame k is engine frame
    /// `recordingStartFrame + k`. Throws `invalidArgument` for a source that is not an input
    /// or has no recording ring, `notFound` for a stale handle. Thread: one reader at a time,
    /// not the render thread.
    public func readRecorded(into output: UnsafeMutableBufferPointer<Float>) throws(TuttiError) -> Int {
        let input = try recordingInput()
        return input.readRecorded(into: output)
    }

    /// Inputs: channels per captured frame (1 or 2). Throws `invalidArgument` for another
    /// kind of source, `notFound` for a stale handle. Any thread.
    public var inputChannelCount: Int {
        get throws(TuttiError) { try engine.withCore { (s) throws(TuttiError) in try s.input(id).channelCount } }
    }

    /// Inputs with a recording ring: the engine frame of the first recorded frame, nil
    /// before the input first captured. Any thread.
    public var recordingStartFrame: Int64? {
        get throws(TuttiError) { try recordingInput().recordingStartFrame }
    }

    /// Inputs with a recording ring: recorded frames lost because the reader fell behind. Any thread.
    public var droppedRecordedFrames: Int {
        get throws(TuttiError) { try recordingInput().droppedRecordedFrames }
    }

    private func recordingInput() throws(TuttiError) -> InputSource {
        let input = try engine.withCore { (s) throws(TuttiError) in try s.input(id) }
        guard input.tapCapacityFrames > 0 else {
            throw TuttiError(.invalidArgument, "input source \(id) has no recording ring (recordCapacityFrames was 0)")
        }
        return input
    }
}
