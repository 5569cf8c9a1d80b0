import Foundation
import Testing
import TuttiDSP

/// The lookahead limiter's sliding minimum is the window's: after every frame, the gain its
/// queue holds is the smallest needed gain (ceiling / the frame's peak) of that frame and the
/// L before it, and the queue never holds more than L + 1 entries, also while the needed gain
/// rises for longer than the window (a loud note decaying over the ceiling), where a queue
/// that pushes onto its full ring loses its head and keeps a later, larger gain.
@Suite struct LimiterLookaheadTests {
    @Test(arguments: [2, 1], [0.003, 0.3])
    func theQueueHoldsTheWindowsMinimum(channelCount: Int, decaySeconds: Double) {
        let rate = 48_000
        let frames = 9_600
        let settings = LimiterSettings(ceilingDB: -1, releaseSeconds: 0.1, lookaheadSeconds: 0.001)
        let span = settings.lookaheadFrames(sampleRate: rate) + 1
        var limiter = PeakLimiter(settings: settings, sampleRate: rate, channelCount: channelCount)
        defer { limiter.deallocate() }
        let ceiling = Float(pow(10, -1.0 / 20))
        // A level falling from 3 to 0.5, again every 0.1 s: the needed gain rises frame after
        // frame for far longer than the 49-frame window, then drops at once.
        var needed: [Float] = []
        var worst = (frame: -1, queued: 0, gain: Float(0), expected: Float(0))
        var frame = [Float](repeating: 0, count: channelCount)
        for f in 0..<frames {
            let level = Float(max(3 * exp(-Double(f % 4_800) / Double(rate) / decaySeconds), 0.5))
            for c in 0..<channelCount { frame[c] = c == 0 ? level : -level * 0.9 }
            needed.append(level > ceiling ? ceiling / level : 1)
            frame.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frameCount: 1) }
            let expected = needed[max(0, f - span + 1)...f].min()!
            let now = limiter.lookaheadMinimum
            if worst.frame < 0 && (now.gain != expected || now.queued > span) {
                worst = (f, now.queued, now.gain, expected)
            }
        }
        #expect(
            worst.frame < 0,
            "frame \(worst.frame): queue of \(worst.queued) (window \(span)) holds \(worst.gain), the window's minimum is \(worst.expected)"
        )
    }
}
