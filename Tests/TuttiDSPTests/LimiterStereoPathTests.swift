import Foundation
import Testing
import TuttiDSP

/// The stereo paths of `PeakLimiter` (without lookahead one pass of eight frames per step: the
/// needed gains, the envelope as a chain with a frame-by-frame redo, the gains applied; with
/// lookahead a chunk at rest passed through the delay line, any other in passes: the sliding
/// minimum by blocks, the envelope as four chains checked against the per-frame step, the
/// average's sums four at a time while exact, with a frame-by-frame redo or sums in order when
/// a check fails) give the same output and the same meter as the per-frame loops, bit for
/// bit, on the same input cut into the same blocks. The at-rest scan both share sees every
/// sample over the ceiling.
@Suite struct LimiterStereoPathTests {
    static let rate = 48_000
    static let frames = 12_000

    /// Interleaved stereo test material of kind `kind` (deterministic).
    static func material(kind: Int) -> [Float] {
        var rng: UInt64 = 0x1234_5678 &+ UInt64(kind)
        func random() -> Float {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int32(truncatingIfNeeded: rng >> 32)) / Float(Int32.max)
        }
        var x = [Float](repeating: 0, count: 2 * frames)
        var level: Float = 1
        for f in 0..<frames {
            let t = Double(f) / Double(rate)
            let s = Float(sin(2 * Double.pi * 110 * t))
            switch kind {
            case 0: // The benchmark's material: a sine near full scale plus a little noise.
                let noise = random() * 0.05
                x[2 * f] = s + noise
                x[2 * f + 1] = s - noise
            case 1: // Sparse spikes over quiet noise: drops, then releases to rest.
                let spike: Float = f % 1_500 == 700 ? 4 : 1
                x[2 * f] = random() * 0.3 * spike
                x[2 * f + 1] = random() * 0.2
            case 2: // Bursts and silences (the reduction falls below 1e-6 and stops).
                let on = (f / 3_000) % 2 == 1
                x[2 * f] = on ? random() * 3 : 0
                x[2 * f + 1] = on ? -random() * 2 : -0.0
            case 3: // A slow rise and fall over the ceiling (long monotonic runs of needed gains).
                let slow = Float(1.5 * sin(2 * Double.pi * 3 * t))
                x[2 * f] = slow
                x[2 * f + 1] = -slow * 0.9
            case 4: // Infinities, NaNs and values a hair either side of the ceiling.
                let r = random()
                x[2 * f] = f % 997 == 5 ? .infinity : (f % 1_009 == 9 ? .nan : r * 1.2)
                x[2 * f + 1] = f % 1_013 == 11 ? -.infinity : Float(0.891_250_9).nextUp * (r < 0 ? -1 : 1)
            case 5: // Noise whose level crosses the ceiling on and off at random (stretches of
                // 1 to 2,000 frames between 0.3 and 1.6).
                if f == 0 || random() > 0.999 { level = 0.95 + 0.65 * random() }
                x[2 * f] = random() * level
                x[2 * f + 1] = random() * level * 0.8
            default: // Bursts far over the ceiling (gains near 1e−12) between quiet stretches.
                let on = (f / 1_700) % 3 == 1
                x[2 * f] = random() * (on ? 1e12 : 0.2)
                x[2 * f + 1] = random() * (on ? 3 : 0.1)
            }
        }
        return x
    }

    @Test(arguments: [0, 1.0 / 48_000, 2.0 / 48_000, 3.0 / 48_000, 5.0 / 48_000, 0.005])
    func theStereoPathsMatchThePerFrameLoopsBitForBit(lookaheadSeconds: Double) {
        let blockSizes = [256, 1, 7, 0, 255, 257, 1_000, 3, 64, 4_096, 31, 33]
        var limitedBlocks = 0
        // Chunks the stereo path with lookahead limited, redid frame by frame, summed in order.
        var chunks = (limited: 0, redone: 0, summedInOrder: 0)
        for kind in 0..<7 {
            let input = Self.material(kind: kind)
            for releaseSeconds in [0.1, 0.001, 0] {
                for ceilingDB in [-1.0, -6, 0] {
                    let settings = LimiterSettings(ceilingDB: ceilingDB, releaseSeconds: releaseSeconds, lookaheadSeconds: lookaheadSeconds)
                    var fast = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: 2)
                    var reference = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: 2)
                    reference.perFrameReference = true
                    defer {
                        fast.deallocate()
                        reference.deallocate()
                    }
                    var a = input
                    var b = input
                    var mismatch: String?
                    a.withUnsafeMutableBufferPointer { pa in
                        b.withUnsafeMutableBufferPointer { pb in
                            var f = 0
                            var block = 0
                            while f < Self.frames && mismatch == nil {
                                let n = min(Self.frames - f, blockSizes[block % blockSizes.count])
                                fast.process(pa.baseAddress! + 2 * f, frameCount: n)
                                reference.process(pb.baseAddress! + 2 * f, frameCount: n)
                                if fast.smallestGain.bitPattern != reference.smallestGain.bitPattern {
                                    mismatch = "meter after block \(block): \(fast.smallestGain) vs \(reference.smallestGain)"
                                }
                                if reference.smallestGain < 1 { limitedBlocks += 1 }
                                f += n
                                block += 1
                            }
                        }
                    }
                    if mismatch == nil, let i = (0..<a.count).first(where: { a[$0].bitPattern != b[$0].bitPattern }) {
                        mismatch = "sample \(i): \(a[i]) vs \(b[i])"
                    }
                    #expect(mismatch == nil, "kind \(kind), release \(releaseSeconds) s, ceiling \(ceilingDB) dB: \(mismatch ?? "")")
                    chunks.limited += fast.chunksLimited
                    chunks.redone += fast.chunksRedone
                    chunks.summedInOrder += fast.chunksSummedInOrder
                }
            }
        }
        // The material made it limit (the comparison is not between two untouched copies).
        #expect(limitedBlocks > 100, "\(limitedBlocks) blocks limited")
        // With lookahead, every way through a chunk was taken: vector sums, a frame-by-frame
        // redo (the reduction cut to 0 below 1e-6, the window's count back to 0), sums in
        // order (gains below 2^−15).
        if lookaheadSeconds > 0 {
            #expect(chunks.limited > chunks.redone + chunks.summedInOrder + 100, "\(chunks)")
            #expect(chunks.redone > 0 && chunks.summedInOrder > 0, "\(chunks)")
        }
    }

    /// At rest, a block whose samples are all at or below the ceiling (or NaN) stays as it is,
    /// bit for bit; one sample just over it, at any position of a block of 1 to 40 samples
    /// (the scan's vector steps and its tail), is limited to at most the ceiling. Mono and
    /// stereo.
    @Test(arguments: [1, 2])
    func theAtRestScanSeesEverySampleOverTheCeiling(channelCount: Int) {
        let settings = LimiterSettings(ceilingDB: -1, releaseSeconds: 0.1)
        let ceiling = settings.ceiling
        for count in stride(from: channelCount, through: 40, by: channelCount) {
            let quiet: [Float] = (0..<count).map { i in i % 5 == 3 ? .nan : (i % 2 == 0 ? ceiling : -ceiling * 0.5) }
            var limiter = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: channelCount)
            var block = quiet
            block.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frameCount: count / channelCount) }
            #expect(block.map(\.bitPattern) == quiet.map(\.bitPattern), "\(count) samples at or below the ceiling changed")
            #expect(limiter.smallestGain == 1)
            limiter.deallocate()
            for position in 0..<count {
                var limiter = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: channelCount)
                defer { limiter.deallocate() }
                var block = [Float](repeating: 0.25, count: count)
                block[position] = -ceiling.nextUp
                block.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frameCount: count / channelCount) }
                #expect(abs(block[position]) <= ceiling, "\(count) samples, over at \(position): \(block[position])")
                #expect(limiter.smallestGain < 1, "\(count) samples, over at \(position)")
            }
        }
    }

    /// The stereo path with a 5 ms lookahead under each kernel variant this CPU supports
    /// (its needed gains, window minima and gains applied are C kernels of the variant: scalar,
    /// SSE2, AVX2, AVX-512) gives the per-frame loop's output and meter, bit for bit, on the
    /// benchmark's material, the crossing noise, the bursts (to silence, and 1e12 over the
    /// ceiling), and the infinities and NaNs.
    @Test func everyKernelVariantMatchesThePerFrameLoopBitForBit() {
        let variants = KernelVariant.supported
        #expect(variants.first?.name == "scalar")
        let blockSizes = [256, 1, 7, 255, 257, 1_000, 3, 64, 31, 33]
        for variant in variants {
            var limited = 0
            for kind in [0, 2, 4, 5, 6] {
                let input = Self.material(kind: kind)
                for ceilingDB in [-1.0, -6] {
                    let settings = LimiterSettings(ceilingDB: ceilingDB, releaseSeconds: 0.1, lookaheadSeconds: 0.005)
                    var fast = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: 2)
                    fast.kernelVariant = variant
                    var reference = PeakLimiter(settings: settings, sampleRate: Self.rate, channelCount: 2)
                    reference.perFrameReference = true
                    defer {
                        fast.deallocate()
                        reference.deallocate()
                    }
                    #expect(fast.kernelVariant == variant)
                    var a = input
                    var b = input
                    var mismatch: String?
                    a.withUnsafeMutableBufferPointer { pa in
                        b.withUnsafeMutableBufferPointer { pb in
                            var f = 0
                            var block = 0
                            while f < Self.frames && mismatch == nil {
                                let n = min(Self.frames - f, blockSizes[block % blockSizes.count])
                                fast.process(pa.baseAddress! + 2 * f, frameCount: n)
                                reference.process(pb.baseAddress! + 2 * f, frameCount: n)
                                if fast.smallestGain.bitPattern != reference.smallestGain.bitPattern {
                                    mismatch = "meter after block \(block): \(fast.smallestGain) vs \(reference.smallestGain)"
                                }
                                f += n
                                block += 1
                            }
                        }
                    }
                    if mismatch == nil, let i = (0..<a.count).first(where: { a[$0].bitPattern != b[$0].bitPattern }) {
                        mismatch = "sample \(i): \(a[i]) vs \(b[i])"
                    }
                    #expect(mismatch == nil, "\(variant), kind \(kind), ceiling \(ceilingDB) dB: \(mismatch ?? "")")
                    limited += fast.chunksLimited
                }
            }
            // The kernels ran (chunks were limited, not only passed through at rest).
            #expect(limited > 200, "\(variant): \(limited) chunks limited")
        }
    }

    /// Each limiter kernel of each variant gives the scalar reference's bytes for every length
    /// 0…70 (the vector steps and every tail) on values with NaNs, infinities, ±0, values at
    /// and next to the ceiling, and gains of exactly 1.
    @Test func theLimiterKernelsOfEveryVariantMatchTheScalarOnes() {
        let scalar = KernelVariant(named: "scalar")!
        let ceiling = LimiterSettings(ceilingDB: -1).ceiling
        var rng: UInt64 = 0x9E37_79B9
        func random() -> Float {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int32(truncatingIfNeeded: rng >> 32)) / Float(Int32.max)
        }
        let specials: [Float] = [.nan, .infinity, -.infinity, 0, -0.0, ceiling, -ceiling, ceiling.nextUp, -ceiling.nextUp, 1e12, 1e-30]
        let samples: [Float] = (0..<160).map { i in i % 7 == 3 ? specials[(i / 7) % specials.count] : random() * 2 }
        // Needed gains: in (0, 1], some exactly 1.
        let needed: [Float] = (0..<80).map { i in i % 5 == 0 ? 1 : max(abs(random()), 1e-12) }
        let after: [Float] = (0..<80).map { i in i % 3 == 0 ? 1 : max(abs(random()), 1e-12) }
        func bits(_ x: [Float]) -> [UInt32] { x.map(\.bitPattern) }
        for variant in KernelVariant.supported {
            for n in 0...70 {
                var g0 = [Float](repeating: 7, count: n)
                var g1 = g0
                samples.withUnsafeBufferPointer { s in
                    g0.withUnsafeMutableBufferPointer {
                        scalar.limiterNeededStereo($0.baseAddress!, s.baseAddress!, frameCount: n, ceiling: ceiling)
                    }
                    g1.withUnsafeMutableBufferPointer {
                        variant.limiterNeededStereo($0.baseAddress!, s.baseAddress!, frameCount: n, ceiling: ceiling)
                    }
                }
                #expect(bits(g0) == bits(g1), "\(variant) needed gains, \(n) frames")

                var outs = [[Float]](repeating: [Float](repeating: 7, count: 3 * n + 1), count: 2)
                for (k, v) in [scalar, variant].enumerated() {
                    outs[k].withUnsafeMutableBufferPointer { o in
                        let p = o.baseAddress!
                        p[3 * n] = v.limiterWindowMinima(
                            p, complement: p + n, stored: p + 2 * n, needed: needed, after: after, count: n, prefix: needed[n % 7 + 1])
                    }
                }
                #expect(bits(outs[0]) == bits(outs[1]), "\(variant) window minima, \(n) frames")

                var s0 = [Float](repeating: 7, count: n + 1)
                var s1 = s0
                s0.withUnsafeMutableBufferPointer { scalar.limiterSuffixMinima($0.baseAddress!, needed, span: n) }
                s1.withUnsafeMutableBufferPointer { variant.limiterSuffixMinima($0.baseAddress!, needed, span: n) }
                #expect(bits(s0) == bits(s1), "\(variant) suffix minima, \(n) frames")

                var x0 = Array(samples[0..<(2 * n)])
                var h0 = Array(samples[(160 - 2 * n)...].reversed())
                var x1 = x0
                var h1 = h0
                let gains: [Float] = (0..<n).map { i in i % 4 == 1 ? 1 : (i % 9 == 2 ? 0 : abs(random())) }
                scalar.limiterApplyStereo(&x0, held: &h0, gains: gains, frameCount: n, ceiling: ceiling)
                variant.limiterApplyStereo(&x1, held: &h1, gains: gains, frameCount: n, ceiling: ceiling)
                #expect(bits(x0) == bits(x1) && bits(h0) == bits(h1), "\(variant) gains applied, \(n) frames")
            }
        }
    }

    /// The window averages kernel of each variant (all add in an order of their own) gives the
    /// in-order sums, gains and smallest gain of the per-frame loop when no addition rounds
    /// (gains in [2^−15, 1], a sum that is a multiple of 2^−38 below 4096), for every length
    /// 0…70.
    @Test func theWindowAveragesOfEveryVariantAreTheInOrderOnes() {
        var rng: UInt64 = 0x51_7CC1
        func random() -> Float {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(UInt32(truncatingIfNeeded: rng >> 32)) / Float(UInt32.max)
        }
        let entering: [Float] = (0..<70).map { i in i % 6 == 0 ? 1 : max(random(), 0x1p-15) }
        let leaving: [Float] = (0..<70).map { i in i % 4 == 0 ? 1 : max(random(), 0x1p-15) }
        let span = 241.0
        for variant in KernelVariant.supported {
            for n in 0...70 {
                for start in [span, 100.0 + 0x1p-38, 0x1p-20] {
                    // The per-frame loop's arithmetic, in order.
                    var s0 = start
                    var least0: Float = 1
                    let g0: [Float] = (0..<n).map { k in
                        s0 += Double(entering[k]) - Double(leaving[k])
                        let g = min(Float(s0 / span), 1)
                        least0 = min(least0, g)
                        return g
                    }
                    var g1 = [Float](repeating: 7, count: n)
                    var s1 = start
                    let least1 = variant.limiterWindowAverages(&g1, entering: entering, leaving: leaving, count: n, sum: &s1, span: span)
                    #expect(g0.map(\.bitPattern) == g1.map(\.bitPattern), "\(variant) averages, \(n) frames from \(start)")
                    #expect(
                        s0.bitPattern == s1.bitPattern && least0.bitPattern == least1.bitPattern, "\(variant), \(n) frames from \(start)")
                }
            }
        }
    }
}
