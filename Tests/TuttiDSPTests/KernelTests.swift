import Foundation
import Testing
import TuttiDSP

/// Every C kernel variant this CPU supports against the Swift scalar references, on the same
/// vectors: odd lengths, unaligned pointers, 1, 2 and 3 channels. Exact where the math is
/// exact (add, the quantizers, SSE2's multiply-then-add); the FMA variants must equal the
/// fused result exactly and stay within a 1-ulp-scaled bound of the two-rounding reference.
@Suite struct KernelTests {
    static let counts = [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 512, 1023]

    func vector(_ n: Int, seed: UInt32, scale: Float = 1) -> [Float] {
        var rng = XorShift32(seed: seed)
        return (0..<n).map { _ in (rng.nextUnit() * 2 - 1) * scale }
    }

    /// Run `body` on copies of `src` and `dst` placed `offset` floats into fresh buffers, so the
    /// kernels see pointers that are not 16-, 32- or 64-byte aligned.
    func withOffset(
        _ offset: Int, src: [Float], dst: [Float],
        _ body: (UnsafeMutablePointer<Float>, UnsafePointer<Float>) -> Void
    ) -> [Float] {
        let s = UnsafeMutablePointer<Float>.allocate(capacity: src.count + offset + 16)
        let d = UnsafeMutablePointer<Float>.allocate(capacity: dst.count + offset + 16)
        defer {
            s.deallocate()
            d.deallocate()
        }
        s.initialize(repeating: 99, count: src.count + offset + 16)
        d.initialize(repeating: 77, count: dst.count + offset + 16)
        (s + offset).update(from: src, count: src.count)
        (d + offset).update(from: dst, count: dst.count)
        body(d + offset, s + offset)
        // Nothing outside the range may be touched.
        for i in 0..<offset { precondition(d[i] == 77, "wrote before the range") }
        for i in 0..<16 { precondition(d[offset + dst.count + i] == 77, "wrote past the range") }
        return Array(UnsafeBufferPointer(start: d + offset, count: dst.count))
    }

    /// The result every variant must give for dst + g·src: the product rounded, then the sum
    /// rounded (no variant fuses them), so all variants write the same bytes.
    func expected(_ v: KernelVariant, _ d: Float, _ g: Float, _ s: Float) -> Float {
        d + g * s
    }

    @Test func everyVariantThisCPUHasIsTested() {
        let names = KernelVariant.supported.map(\.name)
        #expect(names.first == "scalar")
        #if arch(x86_64)
            #expect(names.contains("sse2"))
        #endif
        #expect(names.last == KernelVariant.best.name)
        #expect(KernelVariant.supported.contains(KernelVariant.active))
        // The active variant is the best one unless TUTTI_KERNELS forced a lower one.
        if ProcessInfo.processInfo.environment["TUTTI_KERNELS"] == nil { #expect(KernelVariant.active == KernelVariant.best) }
    }

    /// `Kernels.SettledKernels` (the table read once for a loop over sources) writes what
    /// `Kernels.add`, `mixAdd` and `mixAddPair` write, byte for byte.
    @Test func theSettledKernelsAreTheActiveOnes() {
        let k = Kernels.SettledKernels()
        for n in Self.counts where n % 2 == 0 {
            let src = vector(n, seed: 7 &+ UInt32(n))
            let start = vector(n, seed: 91 &+ UInt32(n))
            for call in 0..<3 {
                var a = start
                var b = start
                a.withUnsafeMutableBufferPointer { ap in
                    b.withUnsafeMutableBufferPointer { bp in
                        src.withUnsafeBufferPointer { sp in
                            guard let d1 = ap.baseAddress, let d2 = bp.baseAddress, let s = sp.baseAddress else { return }
                            switch call {
                            case 0:
                                k.add(d1, s, count: n)
                                Kernels.add(d2, s, count: n)
                            case 1:
                                k.mixAdd(d1, s, count: n, gain: 0.3)
                                Kernels.mixAdd(d2, s, count: n, gain: 0.3)
                            default:
                                k.mixAddPair(d1, s, frameCount: n / 2, gainLeft: 0.7, gainRight: -0.2)
                                Kernels.mixAddPair(d2, s, frameCount: n / 2, gainLeft: 0.7, gainRight: -0.2)
                            }
                        }
                    }
                }
                #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "n \(n) call \(call)")
                if n > 0 { #expect(a != start, "n \(n) call \(call)") }
            }
        }
    }

    @Test(arguments: KernelVariant.supported.map(\.name))
    func addIsExact(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        for n in Self.counts {
            for offset in [0, 1, 3] {
                let src = vector(n, seed: 11)
                let dst = vector(n, seed: 12)
                let got = withOffset(offset, src: src, dst: dst) { v.add($0, $1, count: n) }
                #expect(got == zip(dst, src).map { $0 + $1 }, "n=\(n) offset=\(offset)")
            }
        }
    }

    @Test(arguments: KernelVariant.supported.map(\.name))
    func mixAddMatchesReference(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        let gain: Float = 0.37
        for n in Self.counts {
            for offset in [0, 1, 2, 5] {
                let src = vector(n, seed: 1)
                let dst = vector(n, seed: 2)
                let got = withOffset(offset, src: src, dst: dst) { v.mixAdd($0, $1, count: n, gain: gain) }
                var reference = dst
                reference.withUnsafeMutableBufferPointer { r in
                    src.withUnsafeBufferPointer { Kernels.mixAddReference(r.baseAddress!, $0.baseAddress!, count: n, gain: gain) }
                }
                for i in 0..<n {
                    #expect(got[i] == expected(v, dst[i], gain, src[i]), "n=\(n) offset=\(offset) i=\(i)")
                }
                #expect(got == reference)
            }
        }
    }

    @Test(arguments: KernelVariant.supported.map(\.name), [1, 2, 3])
    func mixAddGainsMatchesReference(variant: String, channels: Int) throws {
        let v = try #require(KernelVariant(named: variant))
        for frames in [0, 1, 3, 7, 8, 9, 17, 33, 255, 301] {
            let src = vector(frames * channels, seed: 3)
            let dst = vector(frames * channels, seed: 4)
            var ramp = LinearRamp(value: 0.2)
            ramp.ramp(to: 0.9, frameCount: 123)
            let gains = (0..<frames).map { _ in ramp.next() }
            let got = gains.withUnsafeBufferPointer { g in
                withOffset(1, src: src, dst: dst) {
                    v.mixAddGains($0, $1, gains: g.baseAddress!, frameCount: frames, channelCount: channels)
                }
            }
            var reference = dst
            reference.withUnsafeMutableBufferPointer { r in
                src.withUnsafeBufferPointer { s in
                    gains.withUnsafeBufferPointer { g in
                        Kernels.mixAddGainsReference(
                            r.baseAddress!, s.baseAddress!, gains: g.baseAddress!, frameCount: frames, channelCount: channels)
                    }
                }
            }
            for f in 0..<frames {
                for c in 0..<channels {
                    let i = f * channels + c
                    #expect(got[i] == expected(v, dst[i], gains[f], src[i]), "frames=\(frames) ch=\(channels) i=\(i)")
                }
            }
            #expect(got == reference)
            if frames > 0 { #expect(got != dst) }
        }
    }

    @Test(arguments: KernelVariant.supported.map(\.name))
    func mixAddPairMatchesReference(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        let (left, right): (Float, Float) = (0.81, 0.23)
        for frames in [0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 255, 301] {
            for offset in [0, 1, 3] {
                let src = vector(2 * frames, seed: 21)
                let dst = vector(2 * frames, seed: 22)
                let got = withOffset(offset, src: src, dst: dst) {
                    v.mixAddPair($0, $1, frameCount: frames, gainLeft: left, gainRight: right)
                }
                var reference = dst
                reference.withUnsafeMutableBufferPointer { r in
                    src.withUnsafeBufferPointer {
                        Kernels.mixAddPairReference(r.baseAddress!, $0.baseAddress!, frameCount: frames, gainLeft: left, gainRight: right)
                    }
                }
                for i in 0..<(2 * frames) {
                    let g = i % 2 == 0 ? left : right
                    #expect(got[i] == expected(v, dst[i], g, src[i]), "frames=\(frames) offset=\(offset) i=\(i)")
                }
                #expect(got == reference)
            }
        }
    }

    @Test(arguments: KernelVariant.supported.map(\.name))
    func mixAddSampleGainsMatchesReference(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        for n in Self.counts {
            for offset in [0, 1, 2] {
                let src = vector(n, seed: 31)
                let dst = vector(n, seed: 32)
                let gains = vector(n, seed: 33).map { abs($0) }
                let got = gains.withUnsafeBufferPointer { g in
                    withOffset(offset, src: src, dst: dst) { v.mixAddSampleGains($0, $1, gains: g.baseAddress!, count: n) }
                }
                var reference = dst
                reference.withUnsafeMutableBufferPointer { r in
                    src.withUnsafeBufferPointer { s in
                        gains.withUnsafeBufferPointer {
                            Kernels.mixAddSampleGainsReference(r.baseAddress!, s.baseAddress!, gains: $0.baseAddress!, count: n)
                        }
                    }
                }
                for i in 0..<n { #expect(got[i] == expected(v, dst[i], gains[i], src[i]), "n=\(n) offset=\(offset) i=\(i)") }
                #expect(got == reference)
            }
        }
    }

    /// A sample's result does not depend on where a call starts or ends (tails compute what
    /// the vector body computes): renders split into different blocks give the same bits.
    @Test(arguments: KernelVariant.supported.map(\.name))
    func resultsDoNotDependOnHowABlockIsSplit(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        let n = 517
        let src = vector(n, seed: 21)
        let dst = vector(n, seed: 22)
        let gains = vector(n / 2 + 1, seed: 23)
        let whole = withOffset(0, src: src, dst: dst) { d, s in
            v.mixAdd(d, s, count: n, gain: 0.61)
            gains.withUnsafeBufferPointer { v.mixAddGains(d, s, gains: $0.baseAddress!, frameCount: n / 2, channelCount: 2) }
        }
        for cut in [1, 5, 13, 100, 257] {
            let split = withOffset(0, src: src, dst: dst) { d, s in
                v.mixAdd(d, s, count: cut, gain: 0.61)
                v.mixAdd(d + cut, s + cut, count: n - cut, gain: 0.61)
                let f = cut / 2
                gains.withUnsafeBufferPointer { g in
                    v.mixAddGains(d, s, gains: g.baseAddress!, frameCount: f, channelCount: 2)
                    v.mixAddGains(d + 2 * f, s + 2 * f, gains: g.baseAddress! + f, frameCount: n / 2 - f, channelCount: 2)
                }
            }
            #expect(split == whole, "cut at \(cut)")
        }
    }

    /// The render path's entry points call the active variant.
    @Test func kernelsCallTheActiveVariant() {
        let v = KernelVariant.active
        let src = vector(301, seed: 6)
        let dst = vector(301, seed: 7)
        let gains = vector(301, seed: 8)
        let viaKernels = withOffset(1, src: src, dst: dst) { d, s in
            Kernels.add(d, s, count: 301)
            Kernels.mixAdd(d, s, count: 301, gain: 0.3)
            gains.withUnsafeBufferPointer { Kernels.mixAddGains(d, s, gains: $0.baseAddress!, frameCount: 150, channelCount: 2) }
        }
        let viaVariant = withOffset(1, src: src, dst: dst) { d, s in
            v.add(d, s, count: 301)
            v.mixAdd(d, s, count: 301, gain: 0.3)
            gains.withUnsafeBufferPointer { v.mixAddGains(d, s, gains: $0.baseAddress!, frameCount: 150, channelCount: 2) }
        }
        #expect(viaKernels == viaVariant)
        #expect(viaKernels != dst)
    }

    /// Samples that exercise every branch of the quantizer: clipping, ±0, halves, NaN, ±∞,
    /// values just around code boundaries, and plain noise.
    func quantizerInput(_ n: Int, bits: Int) -> [Float] {
        let full = Float(1 << (bits - 1))
        var special: [Float] = [0, -0.0, 1, -1, 2, -2, .infinity, -.infinity, .nan, 0.5 / full, -0.5 / full, 1.5 / full, -1.5 / full]
        special += [(full - 0.5) / full, (full - 1.5) / full, -(full - 0.5) / full, 1 / full, -1 / full, Float.leastNonzeroMagnitude]
        return (0..<n).map { i in i < special.count ? special[i] : vector(1, seed: UInt32(i + 1), scale: 1.1)[0] }
    }

    @Test(arguments: KernelVariant.supported.map(\.name), [false, true])
    func quantizersGiveTheReferenceCodes(variant: String, dither: Bool) throws {
        let v = try #require(KernelVariant(named: variant))
        for format in [SampleFormat.s16, .s24] {
            let bits = format.bitsPerSample
            for n in Self.counts + [2049] {
                let input = quantizerInput(n, bits: bits)
                // The reference codes, and the same quantizer's dither values for the kernels.
                var reference = [Int32](repeating: 0, count: n)
                var refQuantizer = TPDFQuantizer(format: format, seed: 1234, dither: dither)
                input.withUnsafeBufferPointer { i in
                    reference.withUnsafeMutableBufferPointer {
                        refQuantizer.quantizeReference(i.baseAddress!, count: n, into: $0.baseAddress!)
                    }
                }
                var ditherValues = [Float](repeating: 0, count: n)
                var q = TPDFQuantizer(format: format, seed: 1234, dither: dither)
                ditherValues.withUnsafeMutableBufferPointer { q.fillDither($0.baseAddress!, count: n) }
                let d: [Float]? = dither ? ditherValues : nil

                var s32 = [Int32](repeating: 0, count: n + 1)
                input.withUnsafeBufferPointer { i in
                    s32.withUnsafeMutableBufferPointer { o in
                        withOptionalPointer(d) { v.quantizeS32(o.baseAddress! + 1, i.baseAddress!, dither: $0, count: n, bits: bits) }
                    }
                }
                #expect(Array(s32.dropFirst()) == reference.map { $0 << (32 - bits) }, "\(format) s32 n=\(n)")
                if format == .s24 {
                    var s24 = [Int32](repeating: 0, count: n)
                    input.withUnsafeBufferPointer { i in
                        s24.withUnsafeMutableBufferPointer { o in
                            withOptionalPointer(d) { v.quantizeS24(o.baseAddress!, i.baseAddress!, dither: $0, count: n) }
                        }
                    }
                    #expect(s24 == reference, "s24 n=\(n)")
                } else {
                    var s16 = [Int16](repeating: 0, count: n + 1)
                    input.withUnsafeBufferPointer { i in
                        s16.withUnsafeMutableBufferPointer { o in
                            withOptionalPointer(d) { v.quantizeS16(o.baseAddress! + 1, i.baseAddress!, dither: $0, count: n) }
                        }
                    }
                    #expect(s16.dropFirst().map { Int32($0) } == reference, "s16 n=\(n)")
                }
            }
        }
    }

    func withOptionalPointer(_ a: [Float]?, _ body: (UnsafePointer<Float>?) -> Void) {
        guard let a else { return body(nil) }
        a.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The quantizer's kernel path (what the ALSA backend and the WAV writer call) gives the
    /// reference's codes, period after period (the dither sequence continues).
    @Test(arguments: [SampleFormat.s16, .s24])
    func quantizerFastPathMatchesReference(format: SampleFormat) {
        let n = 1_003
        let input = quantizerInput(n, bits: format.bitsPerSample)
        var ref = TPDFQuantizer(format: format, seed: 99)
        var fast = ref
        var scratch = [Float](repeating: 0, count: n)
        for _ in 0..<3 {
            var codes = [Int32](repeating: 0, count: n)
            input.withUnsafeBufferPointer { i in
                codes.withUnsafeMutableBufferPointer { ref.quantizeReference(i.baseAddress!, count: n, into: $0.baseAddress!) }
            }
            let shift = Int32(32 - format.bitsPerSample)
            var left = [Int32](repeating: 0, count: n)
            if format == .s16 {
                var s16 = [Int16](repeating: 0, count: n)
                var copy = fast
                input.withUnsafeBufferPointer { i in
                    scratch.withUnsafeMutableBufferPointer { s in
                        s16.withUnsafeMutableBufferPointer {
                            copy.quantize(i.baseAddress!, count: n, scratch: s.baseAddress!, into: $0.baseAddress!)
                        }
                    }
                }
                #expect(s16.map { Int32($0) } == codes)
            }
            input.withUnsafeBufferPointer { i in
                scratch.withUnsafeMutableBufferPointer { s in
                    left.withUnsafeMutableBufferPointer {
                        fast.quantizeLeftJustified(i.baseAddress!, count: n, scratch: s.baseAddress!, into: $0.baseAddress!)
                    }
                }
            }
            #expect(left == codes.map { $0 << shift })
        }
    }

    /// The dense settled list's batch kernel of every variant against the scalar one and
    /// against one reference call per entry (`…Reference`), on the same entries: every kind
    /// (silent, add, one gain, a gain per channel), three targets one or three floats off any
    /// alignment, odd frame counts, chunks up to and past the AVX-512 whole-chunk prefetch
    /// (2 KiB: 256 stereo frames; 300 takes its two-line path), endless loops wrapping inside
    /// the chunk, and entries that reach their end without wrapping (the kernel stops there;
    /// the caller goes on from the next). Positions move in the entry and in the node alike; a
    /// wrap stamps the entry.
    @Test(arguments: KernelVariant.supported.map(\.name), [1, 2])
    func mixSettledMatchesOneCallPerEntry(variant: String, channels: Int) throws {
        let v = try #require(KernelVariant(named: variant))
        let scalar = try #require(KernelVariant(named: "scalar"))
        let entryCount = 23
        let dataFrames = 1_031
        let data = (0..<entryCount).map { vector(dataFrames * channels, seed: 100 &+ UInt32($0)) }
        for frames in [1, 3, 17, 64, 255, 256, 300] {
            /// Entry e: kind, gains, route, position, end and loop as a function of e and frames.
            struct Plan {
                var kind: UInt8, left: Float, right: Float, route: Int, position: Int, end: Int, wraps: Bool, loopStart: Int
            }
            let plans: [Plan] = (0..<entryCount).map { e in
                let end = dataFrames - (e % 4) * 7
                let room = [frames + 5, frames, max(frames / 2, 1), 1][e % 4] // frames before the end
                return Plan(
                    kind: channels == 2 ? UInt8(e % 4) : UInt8([0, 1, 2][e % 3]), left: 0.1 + Float(e) * 0.037,
                    right: -0.2 + Float(e) * 0.029, route: e % 3, position: end - room, end: end, wraps: e % 5 != 4,
                    loopStart: e % 7 == 3 ? end - max(frames / 3, 1) : (e % 3) * 11)
            }
            let targetFloats = frames * channels
            let start = (0..<3).map { vector(targetFloats, seed: 200 &+ UInt32($0)) }

            /// One run of `variant` (nil: the reference, one call per entry); the targets'
            /// samples, the positions and the entries it stopped at.
            func run(_ variant: KernelVariant?) -> (
                targets: [[UInt32]], positions: [Int], nodes: [Int], sinces: [Int64], stops: [Int], wrapped: Int64
            ) {
                let storage = UnsafeMutablePointer<Float>.allocate(capacity: 3 * (targetFloats + 8) + 16)
                defer { storage.deallocate() }
                storage.initialize(repeating: 55, count: 3 * (targetFloats + 8) + 16)
                let offsets = [1, targetFloats + 8 + 3, 2 * (targetFloats + 8) + 1]
                var targets = offsets.map { storage + $0 }
                for r in 0..<3 { targets[r].update(from: start[r], count: targetFloats) }
                var nodes = [Int](repeating: -1, count: entryCount)
                var positions = plans.map(\.position)
                var sinces = [Int64](repeating: -7, count: entryCount)
                var stops: [Int] = []
                var wrapped = Int64.min
                let buffers = data.map { d in
                    let p = UnsafeMutablePointer<Float>.allocate(capacity: d.count)
                    p.initialize(from: d, count: d.count)
                    return p
                }
                defer { for b in buffers { b.deallocate() } }
                if let variant {
                    let entries = UnsafeMutablePointer<Kernels.SettledEntry>.allocate(capacity: entryCount)
                    defer { entries.deallocate() }
                    nodes.withUnsafeMutableBufferPointer { nodePointers in
                        for (e, p) in plans.enumerated() {
                            var entry = Kernels.SettledEntry()
                            entry.data = UnsafePointer(buffers[e])
                            entry.node_position = nodePointers.baseAddress! + e
                            entry.position = p.position
                            entry.end = p.end
                            entry.loop_start = p.loopStart
                            entry.route = p.route
                            entry.slot = e
                            entry.since = -7
                            entry.gain_left = p.left
                            entry.gain_right = p.right
                            entry.kind = p.kind
                            entry.wraps = p.wraps ? 1 : 0
                            (entries + e).initialize(to: entry)
                        }
                        targets.withUnsafeBufferPointer { t in
                            var k = 0
                            while true {
                                k = variant.mixSettled(
                                    entries, from: k, count: entryCount, targets: t.baseAddress!, frameCount: frames,
                                    channelCount: channels,
                                    frame: 4_242, wrappedAt: &wrapped)
                                if k >= entryCount { break }
                                stops.append(k)
                                k += 1
                            }
                        }
                    }
                    positions = (0..<entryCount).map { entries[$0].position }
                    sinces = (0..<entryCount).map { entries[$0].since }
                } else {
                    func mix(_ p: Plan, _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, _ n: Int) {
                        switch p.kind {
                        case 1: for i in 0..<(n * channels) { dst[i] += src[i] }
                        case 2: Kernels.mixAddReference(dst, src, count: n * channels, gain: p.left)
                        case 3: Kernels.mixAddPairReference(dst, src, frameCount: n, gainLeft: p.left, gainRight: p.right)
                        default: break
                        }
                    }
                    for (e, p) in plans.enumerated() {
                        let before = p.end - p.position
                        let dst = targets[p.route]
                        if frames < before {
                            mix(p, dst, buffers[e] + p.position * channels, frames)
                            positions[e] = p.position + frames
                            nodes[e] = positions[e]
                            continue
                        }
                        let after = frames - before
                        guard p.wraps, after < p.end - p.loopStart else {
                            stops.append(e)
                            continue
                        }
                        if before > 0 { mix(p, dst, buffers[e] + p.position * channels, before) }
                        if after > 0 { mix(p, dst + before * channels, buffers[e] + p.loopStart * channels, after) }
                        positions[e] = p.loopStart + after
                        nodes[e] = positions[e]
                        sinces[e] = 4_242
                        wrapped = 4_242
                    }
                }
                // Nothing around the targets is touched.
                for i in 0..<offsets[0] { precondition(storage[i] == 55, "wrote before target 0") }
                for r in 0..<2 {
                    for i in (offsets[r] + targetFloats)..<offsets[r + 1] { precondition(storage[i] == 55, "wrote past target \(r)") }
                }
                let out = targets.map { t in (0..<targetFloats).map { t[$0].bitPattern } }
                return (out, positions, nodes, sinces, stops, wrapped)
            }

            let reference = run(nil)
            let got = run(v)
            let base = run(scalar)
            #expect(got.targets == reference.targets, "\(variant) frames \(frames) channels \(channels)")
            #expect(got.targets == base.targets, "\(variant) frames \(frames) channels \(channels)")
            #expect(got.positions == reference.positions)
            #expect(got.nodes == reference.nodes)
            #expect(got.sinces == reference.sinces)
            #expect(got.stops == reference.stops)
            #expect(got.wrapped == reference.wrapped)
            // The vectors exercise what they are meant to: mixing, wraps and stops.
            #expect(got.targets != start.map { $0.map(\.bitPattern) })
            #expect(reference.wrapped == 4_242)
            #expect(!reference.stops.isEmpty)
        }
    }

    /// The output meter of every variant against the scalar reference: the peak as bits and
    /// the count beyond full scale, over odd counts and alignments, ±0, ±1, values just over
    /// 1, infinities and NaN (its bits are the largest).
    @Test(arguments: KernelVariant.supported.map(\.name))
    func meterMatchesReference(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        var samples = vector(1_100, seed: 77, scale: 1.6)
        let specials: [Float] = [0, -0, 1, -1, 1.0000001, -1.0000001, .infinity, -.infinity, .nan, 0.99999994, 3e-39]
        for (k, x) in specials.enumerated() { samples[k * 97 + 5] = x }
        for count in Self.counts + [1_000] {
            for offset in [0, 1, 3, 7] {
                for startPeak: UInt32 in [0, 0x3F00_0000, 0x7F80_0001] {
                    var c1 = 3
                    var c2 = 3
                    let (got, want) = samples.withUnsafeBufferPointer { s -> (UInt32, UInt32) in
                        let p = s.baseAddress! + offset
                        return (
                            v.meter(p, count: count, peakBits: startPeak, clipped: &c1),
                            Kernels.meterReference(p, count: count, peakBits: startPeak, clipped: &c2)
                        )
                    }
                    #expect(got == want, "count \(count) offset \(offset)")
                    #expect(c1 == c2, "count \(count) offset \(offset)")
                }
            }
        }
    }
}
