import Foundation
import Testing
import TuttiTestSupport

/// `tutti bench voices` and `tutti bench loopback` are subcommands; `mix`'s `--voices` and
/// `--loopback` flags are aliases for one release: the same report, plus one warning line on
/// stderr.
@Suite struct BenchSubcommandTests {
    let tutti = Tool.tuttiPath

    /// The keys of a JSON object, and of each object in its `modes`.
    func shape(_ stdout: String) throws -> (keys: [String], modes: [String], modeKeys: [[String]]) {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)")
        let modes = json["modes"] as? [[String: Any]] ?? []
        return (json.keys.sorted(), modes.compactMap { $0["mode"] as? String }, modes.map { $0.keys.sorted() })
    }

    /// The smallest run (16-frame blocks, a moment per search step): the subcommand and the
    /// alias report the same modes with the same fields, each a count above zero; only the
    /// alias warns.
    @Test func voicesAndItsAliasReportTheSameShape() throws {
        let settings = ["--block", "16", "--seconds", "0.01", "--json"]
        let command = try Tool.run([tutti, "bench", "voices"] + settings)
        let alias = try Tool.run([tutti, "bench", "--voices"] + settings)
        #expect(command.status == 0, "\(command.stderr)")
        #expect(alias.status == 0, "\(alias.stderr)")
        let a = try shape(command.stdout)
        let b = try shape(alias.stdout)
        #expect(a.keys == b.keys && a.modes == b.modes && a.modeKeys == b.modeKeys, "\(command.stdout)\n\(alias.stdout)")
        #expect(a.modes == ["mix", "pan", "linear", "fileDefault"])
        #expect(command.stdout.contains(#""command":"tutti bench voices""#), "\(command.stdout)")
        for run in [command, alias] {
            let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            for mode in json?["modes"] as? [[String: Any]] ?? [] {
                #expect((mode["voices"] as? Int ?? 0) > 0, "\(mode)")
            }
        }
        #expect(!command.stderr.contains("deprecated"), "\(command.stderr)")
        #expect(
            alias.stderr
                == "tutti: warning: tutti bench --voices is deprecated, use `tutti bench voices` (the flag goes in the next release)\n",
            "\(alias.stderr)")
    }

    /// ALSA's `null` PCM captures silence, so no click comes back: both forms exit 1 with the
    /// same report (text and JSON: ALSA, 48 kHz, the period asked for, no round trips); `auto`
    /// with --device is ALSA, said on stderr; only the alias warns.
    @Test func loopbackAndItsAliasReportTheSameOnNull() throws {
        for format in [[], ["--json"]] {
            let settings = ["--device", "null", "--block", "256"] + format
            let command = try Tool.run([tutti, "bench", "loopback", "--backend", "alsa"] + settings)
            let alias = try Tool.run([tutti, "bench", "--loopback", "--backend", "alsa"] + settings)
            let auto = try Tool.run([tutti, "bench", "loopback"] + settings)
            for run in [command, alias, auto] { #expect(run.status == 1, "\(run.stderr)") }
            #expect(command.stdout == alias.stdout && command.stdout == auto.stdout, "\(command.stdout)\n\(alias.stdout)\n\(auto.stdout)")
            if format.isEmpty {
                #expect(command.stdout == "loopback: no click came back\n", "\(command.stdout)")
            } else {
                #expect(
                    command.stdout
                        == #"{"backend":"alsa","sampleRate":48000,"bufferFrames":256,"roundTripFrames":[],"roundTripMs":[]}"# + "\n")
            }
            #expect(command.stderr == "", "\(command.stderr)")
            #expect(
                alias.stderr
                    == "tutti: warning: tutti bench --loopback is deprecated, use `tutti bench loopback` (the flag goes in the next release)\n",
                "\(alias.stderr)")
            #expect(auto.stderr == "tutti: backend: alsa (auto)\n", "\(auto.stderr)")
        }
    }

    /// The loopback options belong to `loopback` (or the deprecated `--loopback`).
    @Test func loopbackOptionsWithoutLoopbackAreUsageErrors() throws {
        let r = try Tool.run([tutti, "bench", "--device", "null"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--backend, --device and --capture-device are for --loopback"), "\(r.stderr)")
        let pipewire = try Tool.run([tutti, "bench", "loopback", "--backend", "pipewire"])
        #expect(pipewire.status == 64)
        #expect(pipewire.stderr.contains("loopback takes --backend auto, alsa or jack"), "\(pipewire.stderr)")
    }

    /// `tutti bench effects` at the smallest settings: every effect (both engine biquads, their
    /// C counterparts, compressor, delay, limiter without and with lookahead) has a positive
    /// finite ns per frame (median and p90) and blocks timed; the C biquad compiled in the run
    /// agreed with the engine's (so the ratios mean something), each engine biquad has a
    /// positive finite ratio; the machine is named. Not a timing assertion.
    @Test func effectsReportsEveryEffectNextToAnAgreeingCBiquad() throws {
        let r = try Tool.run([tutti, "bench", "effects", "--block", "16", "--seconds", "0.005", "--repetitions", "1", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect(json["command"] as? String == "tutti bench effects")
        #expect(!(json["cpuModel"] as? String ?? "").isEmpty && !(json["kernelRelease"] as? String ?? "").isEmpty, "\(json)")
        #expect(json["blockFrames"] as? Int == 16)
        let reference = try #require(json["cReference"] as? [String: Any], "\(json)")
        #expect(reference["agrees"] as? Bool == true, "\(reference)")
        #expect((reference["maxDifference"] as? Double).map { $0 >= 0 && $0 <= 1e-6 } == true, "\(reference)")
        let effects = try #require(json["effects"] as? [[String: Any]], "\(json)")
        #expect(
            effects.compactMap { $0["name"] as? String }
                == ["lowpass", "peaking", "c-lowpass", "c-peaking", "compressor", "delay", "limiter", "limiter-lookahead"])
        func positiveFinite(_ value: Any?) -> Bool { (value as? Double).map { $0.isFinite && $0 > 0 } ?? false }
        for effect in effects {
            #expect(positiveFinite(effect["nsPerFrameMedian"]) && positiveFinite(effect["nsPerFrameP90"]), "\(effect)")
            #expect((effect["blocks"] as? Int ?? 0) >= 8, "\(effect)")
            let isEngineBiquad = ["lowpass", "peaking"].contains(effect["name"] as? String ?? "")
            #expect(isEngineBiquad ? positiveFinite(effect["ratioToCReference"]) : effect["ratioToCReference"] == nil, "\(effect)")
        }
        let goals = try #require(json["goals"] as? [String: Any], "\(json)")
        #expect(goals["biquadMet"] is Bool && goals["limiterMet"] is Bool, "\(goals)")
    }

    /// Without a C compiler (`$CC` names no file) `tutti bench effects` still measures every
    /// engine effect, says why there is no reference, and gives no ratio and no biquad verdict
    /// (exit 0).
    @Test func effectsWithoutACCompilerSaysWhyAndGivesNoRatio() throws {
        let r = try Tool.run(
            [tutti, "bench", "effects", "--block", "16", "--seconds", "0.005", "--repetitions", "1", "--json"],
            environment: ["CC": "/nonexistent/cc"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        let reference = try #require(json["cReference"] as? [String: Any], "\(json)")
        #expect(reference["unavailable"] as? String == "no C compiler found ($CC=/nonexistent/cc is not an executable file)")
        #expect(reference["agrees"] == nil && reference["compiler"] == nil, "\(reference)")
        let effects = try #require(json["effects"] as? [[String: Any]], "\(json)")
        #expect(
            effects.compactMap { $0["name"] as? String }
                == ["lowpass", "peaking", "compressor", "delay", "limiter", "limiter-lookahead"])
        #expect(effects.allSatisfy { $0["ratioToCReference"] == nil }, "\(effects)")
        #expect((json["goals"] as? [String: Any])?["biquadMet"] == nil, "\(json)")
    }
}
