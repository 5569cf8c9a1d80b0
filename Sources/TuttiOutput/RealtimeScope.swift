import Glibc

/// A pair of C functions bracketing the real-time part of each render cycle (e.g.
/// `__rtsan_realtime_enter` / `__rtsan_realtime_exit`). Value type; the functions run on the
/// backend's render thread and must be real-time safe.
public struct RealtimeScope: Sendable {
    /// Called right before the render of a cycle.
    public var enter: @convention(c) () -> Void
    /// Called right after it (and the conversion or de-interleave).
    public var exit: @convention(c) () -> Void

    /// A scope of these two functions.
    public init(enter: @convention(c) () -> Void, exit: @convention(c) () -> Void) {
        self.enter = enter
        self.exit = exit
    }

    /// A scope that does nothing (what a render core runs with when none was given).
    package static let inactive = RealtimeScope(enter: {}, exit: {})

    /// `__rtsan_realtime_enter` / `__rtsan_realtime_exit` when the process was linked with
    /// the RealtimeSanitizer runtime and exports them (`scripts/rtsan-check.sh`); nil otherwise.
    public static func sanitizer() -> RealtimeScope? {
        typealias Hook = @convention(c) () -> Void
        let all = UnsafeMutableRawPointer(bitPattern: 0)
        guard let enter = dlsym(all, "__rtsan_realtime_enter"), let exit = dlsym(all, "__rtsan_realtime_exit") else { return nil }
        return RealtimeScope(enter: unsafeBitCast(enter, to: Hook.self), exit: unsafeBitCast(exit, to: Hook.self))
    }
}
