import Foundation

/// Continuity of a recorded sine of known frequency (a capture take): whether every frame the
/// device delivered arrived in order, with nothing inserted or dropped. Three views of one
/// fault, any of which a gap or a dropped block shows:
/// - **zero runs**: 3 or more consecutive exact zeros after the signal started (silence
///   inserted for frames the capture did not have);
/// - **second-difference spikes**: |x[n] − 2x[n−1] + x[n−2]| above what the sine itself can
///   reach, 4·sin²(πf/fs)·A, plus the noise (a step in the waveform: a click);
/// - **phase**: the sine's phase fitted per block (absolute frame index, so a locked take has
///   one phase throughout); the largest change between neighbouring blocks (a phase jump:
///   frames inserted or dropped) and the largest change from the first block (drift).
///
/// Frames are indices into one channel (the frame index of an interleaved take). Value type;
/// measured on any thread.
public struct Continuity: Sendable, CustomStringConvertible {
    /// A run of exact zeros: first frame and length in frames.
    public struct ZeroRun: Sendable, Equatable {
        /// First zero frame.
        public var start: Int
        /// Frames in the run.
        public var length: Int

        /// A run of `length` zeros from frame `start`.
        public init(start: Int, length: Int) {
            self.start = start
            self.length = length
        }
    }

    /// First frame of the signal (its first sample above 5 % of the peak); nil: no signal.
    public var signalStart: Int?
    /// The sine's amplitude (the median of the per-block fits).
    public var amplitude: Double
    /// Runs of at least 3 exact zeros after `signalStart`, in any channel, in frame order.
    public var zeroRuns: [ZeroRun]
    /// Frames whose second difference exceeds `spikeThreshold`, in any channel.
    public var spikes: [Int]
    /// The largest second difference after `signalStart` (any channel).
    public var maxSecondDifference: Double
    /// The bound a spike must exceed: twice the sine's own, 4·sin²(πf/fs)·A, plus ten times
    /// the noise (the RMS of what a sine predictor leaves, x[n] − 2cos(ω)x[n−1] + x[n−2]).
    public var spikeThreshold: Double
    /// Largest phase change between neighbouring blocks, radians in [0, π].
    public var maxPhaseJumpRadians: Double
    /// Largest phase distance of any block from the first, radians in [0, π].
    public var maxPhaseDriftRadians: Double
    /// Phase-fit blocks measured.
    public var blockCount: Int

    /// No zero run, no spike, and no phase jump or drift above `phaseToleranceRadians`.
    public func isContinuous(phaseToleranceRadians: Double = 0.05) -> Bool {
        signalStart != nil && zeroRuns.isEmpty && spikes.isEmpty && maxPhaseJumpRadians <= phaseToleranceRadians
            && maxPhaseDriftRadians <= phaseToleranceRadians
    }

    /// One line for test logs.
    public var description: String {
        let runs = zeroRuns.prefix(8).map { "\($0.length)@\($0.start)" }.joined(separator: " ")
        return String(
            format: "start %@, amplitude %.4f, %d zero runs [%@], %d spikes (max d2 %.5f, threshold %.5f), "
                + "phase jump %.4f rad, drift %.4f rad over %d blocks",
            signalStart.map(String.init) ?? "none", amplitude, zeroRuns.count, runs, spikes.count, maxSecondDifference,
            spikeThreshold, maxPhaseJumpRadians, maxPhaseDriftRadians, blockCount)
    }

    /// Measure interleaved `samples` (`channelCount` channels) holding a sine of `frequency`
    /// Hz at `sampleRate`; phases are fitted over blocks of `blockFrames` frames (default: a
    /// hundredth of a second, at least 4 cycles).
    public static func measure(
        _ samples: [Float], channelCount: Int = 1, frequency: Double, sampleRate: Double, blockFrames: Int? = nil
    ) -> Continuity {
        let frames = samples.count / max(channelCount, 1)
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        var result = Continuity(
            signalStart: nil, amplitude: 0, zeroRuns: [], spikes: [], maxSecondDifference: 0, spikeThreshold: 0,
            maxPhaseJumpRadians: 0, maxPhaseDriftRadians: 0, blockCount: 0)
        guard peak > 0, frames > 2 else { return result }
        let start = (0..<frames).first { f in (0..<channelCount).contains { abs(samples[f * channelCount + $0]) > 0.05 * peak } }!
        result.signalStart = start
        let w = 2 * Double.pi * frequency / sampleRate
        let block = blockFrames ?? max(Int(sampleRate / 100), Int((4 * sampleRate / frequency).rounded(.up)))
        var amplitudes: [Double] = []
        var spikes = Set<Int>()
        var runs: [ZeroRun] = []
        for c in 0..<channelCount {
            let x = stride(from: c, to: samples.count, by: channelCount).map { Double(samples[$0]) }
            // Zero runs after the start.
            var n = start
            while n < x.count {
                guard x[n] == 0 else {
                    n += 1
                    continue
                }
                var end = n
                while end < x.count && x[end] == 0 { end += 1 }
                if end - n >= 3 { runs.append(ZeroRun(start: n, length: end - n)) }
                n = end
            }
            // Phase per block (after the first block past the start: the onset is not a sine).
            var phases: [Double] = []
            var b = start + block
            while b + block <= x.count {
                let (a, phase) = fit(x[b..<(b + block)], first: b, w: w)
                amplitudes.append(a)
                phases.append(phase)
                b += block
            }
            if let first = phases.first {
                for i in phases.indices {
                    result.maxPhaseDriftRadians = max(result.maxPhaseDriftRadians, abs(wrap(phases[i] - first)))
                    if i > 0 { result.maxPhaseJumpRadians = max(result.maxPhaseJumpRadians, abs(wrap(phases[i] - phases[i - 1]))) }
                }
                result.blockCount += phases.count
            }
            result.amplitude = median(amplitudes)
            // Noise: what a perfect predictor of this sine leaves (0 for a pure sine at w).
            let predictor = 2 * cos(w)
            var residual: [Double] = []
            var m = start + 2
            while m < x.count {
                residual.append(abs(x[m] - predictor * x[m - 1] + x[m - 2]))
                m += 1
            }
            // The median keeps the faults themselves out of the noise estimate.
            let noise = 1.4826 * median(residual)
            let bound = 4 * pow(sin(w / 2), 2) * result.amplitude
            let threshold = 2 * bound + 10 * noise
            result.spikeThreshold = max(result.spikeThreshold, threshold)
            m = start + 2
            while m < x.count {
                let d2 = abs(x[m] - 2 * x[m - 1] + x[m - 2])
                result.maxSecondDifference = max(result.maxSecondDifference, d2)
                if d2 > threshold { spikes.insert(m) }
                m += 1
            }
        }
        result.zeroRuns = runs.sorted { $0.start < $1.start }
        result.spikes = spikes.sorted()
        return result
    }

    /// Least-squares a·sin(wn) + b·cos(wn) over `x` (n the absolute frame): amplitude and phase.
    private static func fit(_ x: ArraySlice<Double>, first: Int, w: Double) -> (Double, Double) {
        var ss = 0.0
        var cc = 0.0
        var sc = 0.0
        var xs = 0.0
        var xc = 0.0
        for (k, v) in x.enumerated() {
            let t = w * Double(first + k)
            let s = sin(t)
            let c = cos(t)
            ss += s * s
            cc += c * c
            sc += s * c
            xs += v * s
            xc += v * c
        }
        let det = ss * cc - sc * sc
        guard det != 0 else { return (0, 0) }
        let a = (xs * cc - xc * sc) / det
        let b = (xc * ss - xs * sc) / det
        return ((a * a + b * b).squareRoot(), atan2(b, a))
    }

    private static func wrap(_ phase: Double) -> Double {
        var p = phase.truncatingRemainder(dividingBy: 2 * Double.pi)
        if p > Double.pi { p -= 2 * Double.pi }
        if p < -Double.pi { p += 2 * Double.pi }
        return p
    }

    private static func median(_ x: [Double]) -> Double {
        guard !x.isEmpty else { return 0 }
        let sorted = x.sorted()
        return sorted[sorted.count / 2]
    }
}
