import ArgumentParser
import Foundation
import Glibc
import Synchronization
import Tutti
import TuttiEngine
import TuttiScene

/// `tutti play` with a scene that captures: which input the backend feeds, the live
/// recording of the sessions' `recordTo`, and SIGINT / SIGTERM / SIGHUP while recording
/// (playback stops and the recordings are finished, not lost).
extension Play {
    /// The scene's input the backend captures into (nil: the scene has none). Several inputs:
    /// an error naming them (one capture device feeds one input). `--capture-device` or
    /// `--capture-from` without an input: an error too.
    func captureInput(_ playback: ScenePlayback) throws -> (id: String, source: InputSource)? {
        let inputs = playback.liveInputs
        if inputs.isEmpty {
            if captureDevice != nil { throw ValidationError("--capture-device: the scene has no input source to capture into") }
            if !jack.captureFrom.isEmpty { throw ValidationError("--capture-from: the scene has no input source to capture into") }
            return nil
        }
        guard inputs.count == 1 else {
            throw ValidationError(
                "the scene has \(inputs.count) input sources (\(inputs.map(\.id).joined(separator: ", "))): tutti play captures into one")
        }
        return (inputs[0].id, inputs[0].source)
    }

    /// The recorder of the scene's `recordTo` sessions, started; nil when nothing is recorded.
    func startRecorder(_ playback: ScenePlayback) throws -> LiveRecorder? {
        let recorder = try LiveRecorder(playback: playback)
        guard !recorder.recordings.isEmpty else { return nil }
        try recorder.start()
        say("recording \(recorder.recordings.map { "session \($0.session) → \($0.path)" }.joined(separator: ", "))")
        return recorder
    }

    /// Finish the recordings (after the output stopped) and say what each holds.
    func finishRecorder(_ recorder: LiveRecorder?, sampleRate: Int) throws {
        guard let recorder else { return }
        try recorder.finish()
        for (r, frames) in zip(recorder.recordings, recorder.framesWritten) {
            say(String(format: "recorded %@: %.2f s (session %@)", r.path, Double(frames) / Double(sampleRate), r.session))
        }
        if recorder.droppedFrames > 0 { say("the recorder fell behind: \(recorder.droppedFrames) recorded frames lost") }
    }
}

/// SIGINT, SIGTERM and SIGHUP during a `tutti play` that records: the first one asks the play
/// loop to stop (it stops the output and finishes the recordings, then exits 128 + the
/// signal); a second one exits at once, removing the unfinished files. As in `Interrupts`,
/// the signals are blocked in every thread and taken by `sigwait` on a thread of their own.
///
/// Thread: `install` on the main thread before any other thread exists; `requested` from any thread.
final class PlayStopRequest: Sendable {
    private let signal = Atomic<Int32>(0)

    /// The signal that asked to stop, nil: none yet.
    var requested: Int32? {
        let s = signal.load(ordering: .acquiring)
        return s == 0 ? nil : s
    }

    /// Block the signals and start the thread that takes them.
    init() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in Interrupts.signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let waited = set
        // Detached, never joined: it waits for signals until the process exits.
        do {
            pthread_detach(
                try startThread(name: "tutti-signals") { [self] in
                    var signals = waited
                    while true {
                        var number: Int32 = 0
                        while sigwait(&signals, &number) != 0 {}
                        if signal.exchange(number, ordering: .acquiringAndReleasing) != 0 {
                            TemporaryFiles.removeAllForExit { _ in
                                FileHandle.standardError.write(
                                    Data("tutti: interrupted again: the unfinished recordings were removed\n".utf8))
                                _exit(128 + number)
                            }
                        }
                    }
                })
        } catch {
            // No thread to take them: the signals act as by default again.
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }
}
