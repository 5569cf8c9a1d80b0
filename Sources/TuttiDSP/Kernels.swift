import CTuttiKernels

// Flat mixing kernels over interleaved float samples. The fast ones call the C kernel table
// (CTuttiKernels: SSE2 / AVX2 / AVX-512 variants, one picked once when the library is
// loaded); each has a scalar Swift reference (`…Reference`) that tests compare every
// variant against. The C kernels neither allocate, lock nor call the system: they are
// called inside `_unsafePerformance` from `@_noLocks` code.

/// The render-path mixing kernels. Stateless; any thread.
public enum Kernels {
    /// dst[i] += gain · src[i], scalar reference (multiply, then add: two roundings).
    @inlinable public static func mixAddReference(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float)
    {
        for i in 0..<count { dst[i] += gain * src[i] }
    }

    /// dst[i] += gain · src[i] over `count` samples, through the active C variant (every
    /// variant bit-identical to `mixAddReference`: multiply, then add). Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func mixAdd(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float) {
        _unsafePerformance { tk_mix_add(dst, src, count, gain) }
    }

    /// dst[i] += src[i] over `count` samples: unity gain as a plain add, so 1.0 stays exact
    /// and cheap. Bit-identical in every variant. Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func add(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int) {
        _unsafePerformance { tk_add(dst, src, count) }
    }

    /// One source of the renderer's dense settled list, as the C batch kernel reads it
    /// (`tk_settled_entry`): its data, position, end, loop start, output bus, gains and kind,
    /// and where its node keeps the position. Trivial value; render thread.
    public typealias SettledEntry = tk_settled_entry

    /// The dense settled list's chunk in one call of the active variant: entries `first…` of
    /// `entries`, in order, each mixed into `targets[route]` over `frameCount` frames as one
    /// `add` / `mixAdd` / `mixAddPair` call per entry would mix it (the same bytes), its
    /// position (and its node's) moved on; an endless loop reaching its end wraps once (then
    /// `wrappedAt` is set to `frame`). Returns the index of the first entry it did not mix
    /// (it reaches its end without wrapping there), `count` when none. Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func mixSettled(
        _ entries: UnsafeMutablePointer<SettledEntry>, from first: Int, count: Int, targets: UnsafePointer<UnsafeMutablePointer<Float>>,
        frameCount: Int, channelCount: Int, frame: Int64, wrappedAt: inout Int64
    ) -> Int {
        let t = UnsafeRawPointer(targets).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self)
        return _unsafePerformance { tk_mix_settled(entries, first, count, t, frameCount, channelCount, frame, &wrappedAt) }
    }

    /// The output meter over `count` samples: the larger of `peakBits` and the largest
    /// |sample| as bits (the sign cleared: floats order as their bits), `clipped` increased
    /// by the samples beyond full scale (|bits| above 1.0's). Integer operations, the same in
    /// every variant. Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func meter(_ samples: UnsafePointer<Float>, count: Int, peakBits: UInt32, clipped: inout Int) -> UInt32 {
        _unsafePerformance { tk_meter(samples, count, peakBits, &clipped) }
    }

    /// Scalar reference of `meter`.
    @inlinable public static func meterReference(_ samples: UnsafePointer<Float>, count: Int, peakBits: UInt32, clipped: inout Int)
        -> UInt32
    {
        var peak = peakBits
        for i in 0..<count {
            let bits = samples[i].bitPattern & 0x7FFF_FFFF
            peak = Swift.max(peak, bits)
            if bits > 0x3F80_0000 { clipped += 1 }
        }
        return peak
    }

    /// The active variant's three settled-mix kernels (`add`, `mixAdd`, `mixAddPair`), read
    /// once so a loop over many sources calls them without reloading the table for each.
    /// Trivial value; any thread (the table never changes after load).
    @frozen public struct SettledKernels {
        @usableFromInline let addFn: @convention(c) (UnsafeMutablePointer<Float>?, UnsafePointer<Float>?, Int) -> Void
        @usableFromInline let mixAddFn: @convention(c) (UnsafeMutablePointer<Float>?, UnsafePointer<Float>?, Int, Float) -> Void
        @usableFromInline let pairFn: @convention(c) (UnsafeMutablePointer<Float>?, UnsafePointer<Float>?, Int, Float, Float) -> Void

        /// The active variant's kernels. Real-time safe (three loads).
        @inlinable @inline(__always) @_noLocks
        public init() {
            let t = _unsafePerformance { tk_active_table().unsafelyUnwrapped }
            addFn = t.pointee.add.unsafelyUnwrapped
            mixAddFn = t.pointee.mix_add.unsafelyUnwrapped
            pairFn = t.pointee.mix_add_pair.unsafelyUnwrapped
        }

        /// `Kernels.add`. Real-time safe.
        @inlinable @inline(__always) @_noLocks
        public func add(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int) {
            _unsafePerformance { addFn(dst, src, count) }
        }

        /// `Kernels.mixAdd`. Real-time safe.
        @inlinable @inline(__always) @_noLocks
        public func mixAdd(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float) {
            _unsafePerformance { mixAddFn(dst, src, count, gain) }
        }

        /// `Kernels.mixAddPair`. Real-time safe.
        @inlinable @inline(__always) @_noLocks
        public func mixAddPair(
            _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, frameCount: Int, gainLeft: Float, gainRight: Float
        ) {
            _unsafePerformance { pairFn(dst, src, frameCount, gainLeft, gainRight) }
        }
    }

    /// dst[f·ch + c] += gains[f] · src[f·ch + c], scalar reference.
    @inlinable public static func mixAddGainsReference(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>,
        gains: UnsafePointer<Float>, frameCount: Int, channelCount: Int
    ) {
        for f in 0..<frameCount {
            for c in 0..<channelCount { dst[f * channelCount + c] += gains[f] * src[f * channelCount + c] }
        }
    }

    /// dst[f·ch + c] += gains[f] · src[f·ch + c]: a per-frame gain over interleaved frames,
    /// through the active C variant (vectorized for 1 and 2 channels). Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func mixAddGains(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>,
        gains: UnsafePointer<Float>, frameCount: Int, channelCount: Int
    ) {
        _unsafePerformance { tk_mix_add_gains(dst, src, gains, frameCount, channelCount) }
    }

    /// Stereo, per channel: dst[2f] += gainLeft · src[2f], dst[2f+1] += gainRight · src[2f+1],
    /// scalar reference.
    @inlinable public static func mixAddPairReference(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, frameCount: Int, gainLeft: Float, gainRight: Float
    ) {
        for f in 0..<frameCount {
            dst[2 * f] += gainLeft * src[2 * f]
            dst[2 * f + 1] += gainRight * src[2 * f + 1]
        }
    }

    /// Stereo at a gain per channel over `frameCount` interleaved frames (a panned source whose
    /// gains are settled), through the active C variant. Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func mixAddPair(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, frameCount: Int, gainLeft: Float, gainRight: Float
    ) {
        _unsafePerformance { tk_mix_add_pair(dst, src, frameCount, gainLeft, gainRight) }
    }

    /// dst[i] += gains[i] · src[i], scalar reference.
    @inlinable public static func mixAddSampleGainsReference(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, gains: UnsafePointer<Float>, count: Int
    ) {
        for i in 0..<count { dst[i] += gains[i] * src[i] }
    }

    /// dst[i] += gains[i] · src[i] over `count` samples: a gain per sample (a panned source
    /// while its gain or pan ramps), through the active C variant. Real-time safe.
    @inlinable @inline(__always) @_noLocks
    public static func mixAddSampleGains(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, gains: UnsafePointer<Float>, count: Int
    ) {
        _unsafePerformance { tk_mix_add_sample_gains(dst, src, gains, count) }
    }
}
