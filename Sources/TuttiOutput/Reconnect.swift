import TuttiEngine

/// What an output does when its device (or sound server) is lost: reopen with exponential
/// backoff, and give up after `timeout`. Value type: any thread.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Give up after this long without the device (zero: at the first failed attempt); nil:
    /// retry for ever. Default 30 s.
    public var timeout: Duration? = .seconds(30)
    /// The first wait before reopening; doubled after each failed attempt.
    public var backoffInitial: Duration = .milliseconds(50)
    /// The longest wait between two attempts.
    public var backoffMax: Duration = .seconds(1)

    /// The defaults above.
    public init() {}

    /// A policy with these values.
    public init(timeout: Duration?, backoffInitial: Duration = .milliseconds(50), backoffMax: Duration = .seconds(1)) {
        self.timeout = timeout
        self.backoffInitial = backoffInitial
        self.backoffMax = backoffMax
    }

    /// Throws `invalidConfiguration` for a negative timeout, a non-positive first wait or a
    /// maximum below it.
    package func validate() throws(TuttiError) {
        guard backoffInitial > .zero, backoffMax >= backoffInitial, (timeout ?? .zero) >= .zero else {
            throw TuttiError(
                .invalidArgument,
                "reconnect: backoffInitial must be positive, backoffMax at least backoffInitial, timeout not negative")
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// One reconnect attempt loop's timing: how long to wait before the next attempt, and whether
/// the timeout has passed. Supervisor thread.
package struct ReconnectBackoff {
    private let policy: ReconnectPolicy
    private let lostAt = monotonicSeconds()
    private var delay: Double

    /// Starts the clock at the loss.
    package init(_ policy: ReconnectPolicy) {
        self.policy = policy
        delay = policy.backoffInitial.inSeconds
    }

    /// Seconds since the loss.
    package var waited: Double { monotonicSeconds() - lostAt }

    /// True once the timeout has passed (never with no timeout).
    package var expired: Bool { policy.timeout.map { waited >= $0.inSeconds } ?? false }

    /// The next wait in seconds (never past the timeout), doubling the one after it up to
    /// `backoffMax`.
    package mutating func nextWait() -> Double {
        let left = policy.timeout.map { max($0.inSeconds - waited, 0.001) } ?? delay
        defer { delay = min(delay * 2, policy.backoffMax.inSeconds) }
        return min(delay, left)
    }
}
