import Glibc
import Testing
import TuttiEngine

@testable import TuttiPipeWire

/// How the data thread's scheduling policy is read: module-rt sets
/// `SCHED_FIFO | SCHED_RESET_ON_FORK`, and the kernel reports the flag with the policy.
@Suite struct PipeWireSchedulingTests {
    /// The flag is masked off: a module-rt thread reads as SCHED_FIFO (not as a normal thread
    /// that Tutti would then lower to its own priority); normal policies read as nil.
    @Test func resetOnForkIsNotAPolicyOfItsOwn() {
        let resetOnFork: Int32 = 0x4000_0000
        #expect(PipeWireOutput.realTimePolicyName(SCHED_FIFO | resetOnFork) == "SCHED_FIFO")
        #expect(PipeWireOutput.realTimePolicyName(SCHED_RR | resetOnFork) == "SCHED_RR")
        #expect(PipeWireOutput.realTimePolicyName(SCHED_FIFO) == "SCHED_FIFO")
        #expect(PipeWireOutput.realTimePolicyName(SCHED_OTHER) == nil)
        #expect(PipeWireOutput.realTimePolicyName(SCHED_OTHER | resetOnFork) == nil)
        #expect(PipeWireOutput.realTimePolicyName(3) == nil) // SCHED_BATCH (a GNU name Glibc does not give Swift)
    }

    /// What the kernel reports for a thread set so: a thread made SCHED_FIFO with the flag
    /// (root may) is read back with it, and read as SCHED_FIFO.
    @Test(.enabled(if: geteuid() == 0, "SCHED_FIFO needs root here"))
    func aThreadSetAsModuleRtSetsItReadsAsRealTime() throws {
        let resetOnFork: Int32 = 0x4000_0000
        final class Seen { var set: Int32 = -1, policy: Int32 = 0 }
        let seen = Seen()
        let thread = try startThread(name: "tutti-test-rt") {
            var parameters = sched_param(sched_priority: 10)
            seen.set = pthread_setschedparam(pthread_self(), SCHED_FIFO | resetOnFork, &parameters)
            _ = pthread_getschedparam(pthread_self(), &seen.policy, &parameters)
        }
        pthread_join(thread, nil)
        try #require(seen.set == 0, "pthread_setschedparam: \(seen.set)")
        #expect(seen.policy & resetOnFork != 0, "policy \(seen.policy)")
        #expect(PipeWireOutput.realTimePolicyName(seen.policy) == "SCHED_FIFO")
    }
}
