import TuttiDSP

/// The memory a backend renders every output bus into with
/// `Renderer.render(outputBuses:busCount:frameCount:)`: one interleaved stretch of
/// `frameCapacity` frames per bus, each starting on a 64-byte boundary (`strideSamples`
/// floats apart), and the table of their starts that the call takes. A cycle longer than
/// `frameCapacity` is rendered in pieces (the engine's output does not depend on how a
/// cycle is split). Used by the backends a server calls each cycle (JACK, PipeWire).
///
/// Noncopyable: one owner (the backend's real-time core) frees the memory when it goes.
/// Thread: created on the control thread (it allocates); the real-time thread renders into
/// it and reads it in place.
public struct OutputBusBuffers: ~Copyable {
    /// Output buses (main first).
    public let busCount: Int
    /// Frames each bus's stretch holds.
    public let frameCapacity: Int
    /// Floats from one bus's stretch to the next: `frameCapacity × channelCount` rounded up to
    /// a multiple of 16.
    public let strideSamples: Int
    /// Every stretch, one after the other (zeroed at creation).
    public let samples: UnsafeMutablePointer<Float>
    /// Bus r's stretch at `table[r]`: what `Renderer.render(outputBuses:…)` takes.
    public let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// Stretches of `frameCapacity` frames of `channelCount` channels for `busCount` buses.
    /// Allocates: control thread.
    public init(busCount: Int, frameCapacity: Int, channelCount: Int) {
        self.busCount = busCount
        self.frameCapacity = frameCapacity
        strideSamples = alignedAudioStride(frameCapacity * channelCount, of: Float.self)
        samples = allocateAudio(Float.self, capacity: strideSamples * busCount)
        samples.initialize(repeating: 0, count: strideSamples * busCount)
        table = .allocate(capacity: busCount)
        for r in 0..<busCount { (table + r).initialize(to: samples + r * strideSamples) }
    }

    /// Bus `r`'s stretch. Real-time safe: any thread that owns the memory now.
    @inlinable @inline(__always)
    public func bus(_ r: Int) -> UnsafeMutablePointer<Float> { samples + r &* strideSamples }

    deinit {
        deallocateAudio(samples)
        table.deallocate()
    }
}
