// Host DSP: an effect the host writes itself, run by the engine on the render thread.

/// An effect written by the host, inserted on a session's bus (`SessionHandle.setHostEffect`)
/// after the bus's built-in chain, before the bus's gate, gain, duck and volume.
///
/// `process` runs on the render thread, once per rendered chunk (a block, or part of one where
/// a change is scheduled), with the bus's mix: `frameCount` interleaved frames of
/// `channelCount` channels (the engine's channel count; frame `f`, channel `c` is
/// `buffer[f * channelCount + c]`), samples nominally in −1…1, to change in place. It is called
/// for every chunk while installed, silent ones included.
///
/// Render-thread rules: no locks, no allocation or freeing (no new arrays, strings, class
/// instances, closures that capture), no I/O, logging, system calls or waiting; only work
/// bounded by `frameCount`. Mark your implementation `@_noLocks` where the compiler can check
/// it (the engine calls it through a function pointer, which it cannot check for you). State
/// that only `process` touches needs no synchronization (the engine calls it from one thread at
/// a time), so a class holding it may declare `@unchecked Sendable`; parameters a control
/// thread changes while it runs go through atomics (`Synchronization.Atomic`). The engine keeps
/// a strong reference while the effect is installed and drops it on a control thread once the
/// render side has let go of it (inside a later call on the engine, on its event-delivery
/// thread, or when the engine is freed), with the engine's lock held: a `deinit` that runs
/// then must not call the engine.
public protocol HostEffect: AnyObject, Sendable {
    /// Process `frameCount` interleaved frames of `channelCount` channels in `buffer`, in place.
    /// Render thread: no locks, no allocation, no I/O (see `HostEffect`).
    func process(_ buffer: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int)
}

/// A host effect's render-thread entry, as C sees it (`tutti_effect_callback`): the
/// interleaved samples, frames, channels and the host's pointer. Called on the render thread.
public typealias HostEffectCallback = @convention(c) (UnsafeMutablePointer<Float>?, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void

/// Called once with the host's pointer when the engine no longer calls the effect
/// (`tutti_effect_release`). Called on a control thread, never the render thread, with the
/// engine's lock held (it must not call the engine).
public typealias HostEffectRelease = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// The render side's view of one installed host effect: a callback, the host's pointer and
/// what releases it. Built on the control side (`make`), handed to the render thread by
/// command, handed back to be released and freed (`destroy`). Thread: the render thread once
/// handed over.
public struct HostEffectSlot {
    /// What the render thread calls.
    public let callback: HostEffectCallback
    /// The host's pointer, passed to `callback` and `release`.
    public let user: UnsafeMutableRawPointer?
    /// Called once with `user` by `destroy` (nil: nothing to release).
    public let release: HostEffectRelease?

    /// A slot calling `callback` with `user`; `release` (may be nil) is called with `user` when
    /// it is destroyed. Allocates: control side.
    public static func make(callback: HostEffectCallback, user: UnsafeMutableRawPointer?, release: HostEffectRelease?)
        -> UnsafeMutablePointer<HostEffectSlot>
    {
        let slot = UnsafeMutablePointer<HostEffectSlot>.allocate(capacity: 1)
        slot.initialize(to: HostEffectSlot(callback: callback, user: user, release: release))
        return slot
    }

    /// A slot calling `effect.process`; it holds a strong reference to `effect` until it is
    /// destroyed (no reference counting on the render thread). Allocates: control side.
    public static func make(_ effect: any HostEffect) -> UnsafeMutablePointer<HostEffectSlot> {
        let box = Unmanaged.passRetained(HostEffectBox(effect)).toOpaque()
        return make(callback: hostEffectThunk, user: box, release: hostEffectBoxRelease)
    }

    /// Calls `release` with `user` once, then frees the slot. Control side, once no thread
    /// processes with it.
    public static func destroy(_ slot: UnsafeMutablePointer<HostEffectSlot>) {
        let s = slot.pointee
        slot.deinitialize(count: 1).deallocate()
        s.release?(s.user)
    }

    /// Run the host's effect on `frameCount` interleaved frames of `channelCount` channels of
    /// `buffer`, in place. Render thread. The host's code is outside what the compiler checks
    /// here (a call through a pointer); the host's rules are `HostEffect`'s.
    @inlinable @_noLocks public func process(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int, channelCount ch: Int) {
        let callback = callback
        let user = user
        _unsafePerformance { callback(buffer, UInt32(truncatingIfNeeded: n), UInt32(truncatingIfNeeded: ch), user) }
    }
}

/// Holds a Swift host effect for its slot (the slot's `user`, retained once).
final class HostEffectBox {
    let effect: any HostEffect
    init(_ effect: any HostEffect) { self.effect = effect }
}

/// The callback of a Swift host effect: the box is borrowed, never retained (render thread).
private let hostEffectThunk: HostEffectCallback = { buffer, frames, channels, user in
    guard let buffer, let user else { return }
    Unmanaged<HostEffectBox>.fromOpaque(user)._withUnsafeGuaranteedRef {
        $0.effect.process(buffer, frameCount: Int(frames), channelCount: Int(channels))
    }
}

/// Drops the box's reference (control side).
private let hostEffectBoxRelease: HostEffectRelease = { user in
    guard let user else { return }
    Unmanaged<HostEffectBox>.fromOpaque(user).release()
}
