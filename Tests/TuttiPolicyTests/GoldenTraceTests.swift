import Testing
import TuttiPolicy

// Everything added after the seeds' and Apple's rules (focus requests, pause instead of duck,
// delayed grants, ...) is off by default. These digests were computed on the policy before
// any of it existed: every journal, error and render view of thousands of generated traces.
// A different digest means some existing behaviour changed.

/// FNV-1a, 64 bits: stable across runs and platforms (unlike `Hasher`).
struct StableDigest {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        value ^= 0xFF
        value = value &* 0x0000_0100_0000_01B3
    }
}

/// The render view in words: what a listener would notice (gates, ducks, running sources).
func viewSummary(_ v: RenderView) -> String {
    var parts: [String] = []
    for s in v.sessions {
        let state: String
        switch s.state {
        case .audible: state = "audible"
        case .silenced(let r): state = "silenced." + r.rawValue
        case .interrupted: state = "interrupted"
        case .inactive: state = "inactive"
        }
        parts.append(
            "\(s.id):\(state):\(s.policyGain):\(s.duckedBy ?? "-"):\(s.duck.map { "\($0.levelDB)/\($0.attackSeconds)/\($0.releaseSeconds)" } ?? "-"):\(s.duckRule.map { "\($0)" } ?? "-")"
        )
    }
    for x in v.sources { parts.append("\(x.id):\(x.isRunning):\(x.rewinds)") }
    parts.append("call:\(v.callActive) sounds:\(v.systemSoundsAllowed) vol:\(v.systemVolume)/\(v.ringerVolume) route:\(v.route.rawValue)")
    return parts.joined(separator: " ")
}

/// The digest of `count` generated traces of `seed` (with the closing actions): every step's
/// journal, error and view (not the action's own text, which new defaulted fields would change).
func traceDigest(seed: UInt64, count: Int, weights: [ActionKind: Int]) -> UInt64 {
    var digest = StableDigest()
    let worlds = Worlds.scenario(weights: weights)
    for n in 0..<count {
        var rng = seededRNG(seed, n)
        let scenario = worlds.run(using: &rng)
        let trace = Trace(scenario, scenario.actions + scenario.closing)
        digest.add(viewSummary(trace.initial.renderView))
        for step in trace.steps {
            for e in step.outcome.journal { digest.add(e.description) }
            digest.add(step.outcome.error.map { "error \($0.code): \($0)" } ?? "ok")
            digest.add(viewSummary(step.afterView))
        }
    }
    return digest.value
}

@Suite("existing behaviour is unchanged (digests of the journals before the extensions)")
struct GoldenTraceTests {
    @Test("every generated trace without a new key has today's journals, errors and views")
    func unchanged() {
        let all: [ActionKind: Int] = [.voiceStolen: 1, .voiceRefused: 1, .setDuckingRules: 2, .setCategory: 2]
        #expect(traceDigest(seed: 2026, count: 1500, weights: all) == 3_596_018_187_951_681_182)
        #expect(traceDigest(seed: 7, count: 700, weights: [:]) == 17_135_199_146_469_261_401)
    }
}
