import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiJACK
import TuttiOutput
import TuttiTestSupport

/// Every JACK test, one at a time: libjack keeps per-process state for one server, so a test
/// process must not have clients on two servers at once (two tests in parallel crash in libjack).
@Suite(.serialized) struct JACKTests {}
