// A small Swift host of Tutti: a music player and a navigation app share the output; the
// navigation prompt (a 660 Hz voice the host feeds through a 22.05 kHz stream) ducks the
// music for a second. Audio is pulled from the engine in the host's own loop, as an audio
// callback would; every change lands at an exact frame. Then the events, the measured
// ducking, and a policy refusal (activation during a phone call).
import Tutti

#if canImport(Glibc)
    import Glibc
#endif

let rate = 48_000
var configuration = AudioEngineConfiguration()
configuration.sampleRate = rate
configuration.channelCount = 1
let engine = try AudioEngine(configuration: configuration)

let music = try engine.makeSession(named: "music", category: .playback)
let song = try music.makeToneSource(frequency: 440, amplitude: 0.5, name: "song")
let nav = try engine.makeSession(SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers], mode: .voicePrompt))
let voice = try nav.makeStreamSource(sampleRate: 22_050, channelCount: 1, name: "voice")

// The music now; the prompt from 1 s to 2 s.
try song.play()
try nav.setActive(true, at: .frame(48_000))
try voice.play(at: .frame(48_000))
try voice.stop(at: .frame(96_000))
try nav.setActive(false, options: .notifyOthersOnDeactivation, at: .frame(96_000))

// The host's loop: 3 s in blocks of 256 frames, the voice fed 22.05 kHz frames as it goes.
var output = [Float](repeating: 0, count: 3 * rate)
var phase = 0.0
var chunk = [Float](repeating: 0, count: 512)
var pending = 0 // frames of `chunk` not taken yet
for start in stride(from: 0, to: output.count, by: 256) {
    while true {
        if pending == 0 {
            for k in chunk.indices {
                chunk[k] = Float(0.3 * sin(phase))
                phase += 2 * Double.pi * 660 / 22_050
            }
            pending = chunk.count
        }
        let taken = try chunk.withUnsafeBufferPointer { try voice.write(UnsafeBufferPointer(rebasing: $0[(chunk.count - pending)...])) }
        pending -= taken
        if pending > 0 { break } // the stream is full
    }
    output.withUnsafeMutableBufferPointer { _ = engine.render(into: $0.baseAddress! + start, frameCount: 256) }
}

/// `x` rounded to 3 decimals, for printing.
func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

for event in engine.pollEvents() {
    print("\(rounded(Double(event.frame) / Double(rate))) s: \(event.kind)")
}

/// Amplitude of a `frequency` Hz sine in `x` (correlation with a Hann window).
func amplitude(_ x: ArraySlice<Float>, _ frequency: Double) -> Double {
    var (re, im, weights) = (0.0, 0.0, 0.0)
    for (k, v) in x.enumerated() {
        let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(x.count - 1))
        let p = 2 * Double.pi * frequency * Double(k) / Double(rate)
        re += w * Double(v) * cos(p)
        im += w * Double(v) * sin(p)
        weights += w
    }
    return 2 * (re * re + im * im).squareRoot() / weights
}

let before = amplitude(output[9_600..<43_200], 440)
let ducked = amplitude(output[62_400..<91_200], 440)
let duckDB = 20 * log10(ducked / before)
let voiceLevel = amplitude(output[62_400..<91_200], 660)
print(
    "music \(rounded(before)) → \(rounded(ducked)) while the prompt speaks (\(rounded(duckDB)) dB); voice at 660 Hz: \(rounded(voiceLevel))"
)

// The policy refuses with a reason, and nothing changes.
try engine.beginPhoneCall()
do {
    try nav.setActive(true)
} catch {
    print("refused (\(error.code.name)): \(error.message)")
}
guard abs(duckDB + 15) < 0.5, abs(voiceLevel - 0.3) < 0.01 else {
    print("swift-host: unexpected levels")
    exit(1)
}
