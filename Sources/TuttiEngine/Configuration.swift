import TuttiDSP

/// Engine settings, fixed at creation. Value type: any thread.
public struct EngineConfiguration: Sendable, Equatable {
    public var sampleRate: Int = 48_000
    public var channelCount: Int = 2
    /// Longest stretch rendered in one go; longer render calls are split (scratch buffers have this size).
    public var maxBlockFrames: Int = 4096
    /// Capacity of the graph (slots are preallocated; nothing grows while rendering).
    public var maxSources: Int = 512
    public var maxBuses: Int = 64
    public var commandQueueCapacity: Int = 8192
    public var eventQueueCapacity: Int = 8192
    /// Default ramps (seconds): source gain changes, play/pause/stop fades, bus gates, volume.
    public var sourceGainRampSeconds: Double = 0.010
    public var transportFadeSeconds: Double = 0.010
    public var gateRampSeconds: Double = 0.020
    public var volumeRampSeconds: Double = 0.020

    public init(sampleRate: Int = 48_000, channelCount: Int = 2) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Seconds → frames at the engine rate (rounded to the nearest frame).
    @inlinable public func frames(forSeconds seconds: Double) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }

    public func validate() throws {
        guard (8_000...384_000).contains(sampleRate) else {
            throw EngineError.invalidConfiguration("sampleRate \(sampleRate) is outside 8000…384000")
        }
        guard (1...2).contains(channelCount) else { throw EngineError.invalidConfiguration("channelCount \(channelCount) must be 1 or 2") }
        guard maxBlockFrames >= 16 else { throw EngineError.invalidConfiguration("maxBlockFrames must be at least 16") }
        guard maxSources > 0, maxBuses > 0 else { throw EngineError.invalidConfiguration("maxSources and maxBuses must be positive") }
    }
}

public enum EngineError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidConfiguration(String)
    case tooManySources(limit: Int)
    case tooManyBuses(limit: Int)
    case unknownBus(Int)
    case commandQueueFull
    case formatMismatch(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let s): "invalid engine configuration: \(s)"
        case .tooManySources(let n): "too many sources (the engine was configured for \(n))"
        case .tooManyBuses(let n): "too many sessions (the engine was configured for \(n) buses)"
        case .unknownBus(let i): "no bus with id \(i)"
        case .commandQueueFull:
            "the command queue is full (the render side is not consuming; try again later or raise commandQueueCapacity)"
        case .formatMismatch(let s): s
        }
    }
}
