import TuttiEngine
import TuttiPolicy

/// What an offline driver (TuttiScene's `OfflineRenderer`) hears from the `AudioSystem` it
/// drives, beyond the methods it calls: given once, to
/// `AudioSystem.init(configuration:observer:)`, and held for the system's life. A host's
/// system (`AudioEngine`'s) has none (`init(configuration:)`); the system does the same work
/// either way, this interface only listens.
///
/// Thread: every method is called on the system's control thread (the driver's own),
/// synchronously, inside the system call that caused it, in the order things happen; it must
/// not call back into the system.
package protocol OfflineDriverObserver: AnyObject {
    /// A value command the system sent to its engine (`AudioSystem.send`: every decision of
    /// the policy, and the gains, pans, rates, fades, loops, output buses and seeks asked for), in
    /// the order sent, with its frame at the engine rate (-1: `EngineTime.now`). Not told:
    /// what goes to the engine directly (buses, sources, effect chains, the start-up volumes).
    /// (`ScenePlayback` forwards them to its live engine.)
    func commandSent(_ command: EngineCommand, at frame: Int64)

    /// The render view after a policy action or a render report changed it, at that frame
    /// (engine rate): what the engine was just told (a timeline picture's input).
    func viewChanged(_ view: RenderView, at frame: Int64)

    /// The journal entries of one render report the policy absorbed — a source that ended, a
    /// voice stolen or refused (the policy's entries for it), a signal-triggered duck that
    /// began or ended — at the report's frame (engine rate). Reports arrive in frame order,
    /// absorbed by `AudioSystem.takeDeliverableEvents()` and before each policy action.
    func renderReported(_ journal: [JournalEntry], at frame: Int64)
}

/// A host system's observer: hears nothing.
final class Unobserved: OfflineDriverObserver {
    func commandSent(_ command: EngineCommand, at frame: Int64) {}
    func viewChanged(_ view: RenderView, at frame: Int64) {}
    func renderReported(_ journal: [JournalEntry], at frame: Int64) {}
}
