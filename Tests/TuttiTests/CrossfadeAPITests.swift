import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// `SourceHandle.crossfade(from:durationFrames:at:)`, measured in the output: a 440 Hz tone
/// gives way to a 1000 Hz one at equal power, frame-exactly and without clicks, and the old
/// one ends stopped; bad input throws naming the argument and changes nothing.
@Suite struct CrossfadeAPITests {
    static let start = 4_800
    static let length = 96_000
    static let total = start + length + 4_800

    /// A mono engine whose `music` session plays `song` (440 Hz, 0.5) from frame 0 and holds
    /// `next` (1000 Hz, 0.5) and `idle` (2000 Hz); `elsewhere` is a tone of the `nav` session.
    static func setUp() throws -> (engine: AudioEngine, song: SourceHandle, next: SourceHandle, idle: SourceHandle, elsewhere: SourceHandle)
    {
        let (engine, music, nav, song, _) = try makeEngine()
        let next = try music.makeToneSource(frequency: 1_000, amplitude: 0.5, name: "next")
        let idle = try music.makeToneSource(frequency: 2_000, amplitude: 0.5, name: "idle")
        let elsewhere = try nav.makeToneSource(frequency: 3_000, amplitude: 0.5, name: "elsewhere")
        try song.play(at: .frame(0))
        return (engine, song, next, idle, elsewhere)
    }

    @Test func theOldToneGivesWayToTheNewOneAtEqualPower() throws {
        let (engine, song, next, _, _) = try Self.setUp()
        try next.crossfade(from: song, durationFrames: Int64(Self.length), at: .frame(Int64(Self.start)))
        let x = render(engine, frames: Self.total)
        let end = Self.start + Self.length
        // Before: only 440 Hz (4 800 frames: whole periods of both tones).
        #expect(abs(level(x, 0..<Self.start, 440) - 0.5) < 0.001)
        #expect(level(x, 0..<Self.start, 1_000) < 0.001)
        // Half-way (1 200 frames around it: 11 and 25 whole periods), each at −3.01 dB of 0.5.
        let middle = (Self.start + Self.length / 2 - 600)..<(Self.start + Self.length / 2 + 600)
        for frequency in [440.0, 1_000] {
            let dB = Analysis.dB(level(x, middle, frequency) / 0.5)
            #expect(abs(dB - -3.0103) <= 0.05, "\(frequency) Hz half-way: \(dB) dB")
        }
        // After: only 1000 Hz.
        #expect(abs(level(x, end..<Self.total, 1_000) - 0.5) < 0.001)
        #expect(level(x, end..<Self.total, 440) < 0.001)
        // No click where the fade starts or ends: nothing bends more sharply than the 1000 Hz
        // tone alone does.
        #expect(Analysis.clicks(x, reference: end..<Self.total).isEmpty)
        #expect(try song.state == .stopped)
        #expect(try song.position == 0)
        #expect(try next.state == .playing)
    }

    /// Frame-exact: before the crossfade's frame the output is the old tone alone, bit for
    /// bit, and from its last frame on the new tone alone played from that frame.
    @Test func theFadesStartAndEndAtTheirFrames() throws {
        let (engine, song, next, _, _) = try Self.setUp()
        try next.crossfade(from: song, durationFrames: Int64(Self.length), at: .frame(Int64(Self.start)))
        let x = render(engine, frames: Self.total)
        let alone = try Self.setUp()
        try alone.next.play(at: .frame(Int64(Self.start)))
        try alone.song.stop(at: .frame(Int64(Self.start)))
        let y = render(alone.engine, frames: Self.total)
        let end = Self.start + Self.length
        #expect(x[0..<Self.start] == y[0..<Self.start])
        #expect(x[end...] == y[end...])
        // In between, both fades move: the new tone is not at full level yet.
        #expect(x[Self.start + 100] != y[Self.start + 100])
    }

    /// A stop of the old source during the crossfade leaves it running: it ends as planned.
    @Test func aStopDuringTheCrossfadeLetsItFinish() throws {
        let (engine, song, next, _, _) = try Self.setUp()
        try next.crossfade(from: song, durationFrames: Int64(Self.length), at: .frame(Int64(Self.start)))
        let x = render(engine, frames: Self.total)
        let again = try Self.setUp()
        try again.next.crossfade(from: again.song, durationFrames: Int64(Self.length), at: .frame(Int64(Self.start)))
        _ = render(again.engine, frames: Self.start + 1_000)
        try again.song.stop()
        let y = render(again.engine, frames: Self.total - Self.start - 1_000)
        #expect(Array(x[(Self.start + 1_000)...]) == y)
    }

    /// Into a source already playing at full level: it stays there (no dip, no click) while
    /// the old one fades out and stops.
    @Test func intoAPlayingSourceItStaysAtFullLevel() throws {
        let (engine, song, next, _, _) = try Self.setUp()
        try next.play(at: .frame(0))
        try next.crossfade(from: song, durationFrames: Int64(Self.length), at: .frame(Int64(Self.start)))
        let x = render(engine, frames: Self.total)
        let end = Self.start + Self.length
        for range in [0..<Self.start, (Self.start + 48_000 - 600)..<(Self.start + 48_000 + 600), end..<Self.total] {
            #expect(abs(level(x, range, 1_000) - 0.5) < 0.001, "1000 Hz in \(range)")
        }
        let dB = Analysis.dB(level(x, (Self.start + 48_000 - 600)..<(Self.start + 48_000 + 600), 440) / 0.5)
        #expect(abs(dB - -3.0103) <= 0.05, "440 Hz half-way: \(dB) dB")
        #expect(level(x, end..<Self.total, 440) < 0.001)
        #expect(try song.state == .stopped)
    }

    /// At `.now`: the fades start at the next block; the old source is stopped `durationFrames` later.
    @Test func atNowTheOldSourceStopsDurationFramesLater() throws {
        let (engine, song, next, _, _) = try Self.setUp()
        _ = render(engine, frames: 1_024)
        try next.crossfade(from: song, durationFrames: 4_800)
        _ = render(engine, frames: 4_800 - 256, block: 256)
        #expect(try song.state == .playing)
        _ = render(engine, frames: 256)
        #expect(try song.state == .stopped)
        #expect(try next.state == .playing)
    }

    enum Bad: CaseIterable { case itself, otherSession, notPlaying, zero, negative, tooLong, removedFrom, removedSource }

    @Test(arguments: Bad.allCases)
    func badInputThrowsNamingItAndChangesNothing(_ bad: Bad) throws {
        let (engine, song, next, idle, elsewhere) = try Self.setUp()
        let reference = try Self.setUp()
        var code = TuttiError.Code.invalidArgument
        var name = "from"
        var source = next
        var from = song
        var frames: Int64 = 4_800
        switch bad {
        case .itself: source = song
        case .otherSession: source = elsewhere
        case .notPlaying:
            from = idle
            code = .state
        case .zero:
            frames = 0
            name = "durationFrames"
        case .negative:
            frames = -1
            name = "durationFrames"
        case .tooLong:
            frames = Int64(Int32.max) + 1
            name = "durationFrames"
        case .removedFrom:
            try idle.remove()
            try reference.idle.remove()
            from = idle
            code = .notFound
        case .removedSource:
            try idle.remove()
            try reference.idle.remove()
            source = idle
            code = .notFound
            name = "no source"
        }
        #expect {
            try source.crossfade(from: from, durationFrames: frames, at: .frame(100))
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == code && e?.message.contains(name) == true
        }
        #expect(render(engine, frames: 9_600) == render(reference.engine, frames: 9_600))
        #expect(try song.state == .playing)
        #expect(try next.state == .stopped)
        #expect(try elsewhere.state == .stopped)
    }
}
