import Tutti

let engine = try AudioEngine() // 48 kHz stereo, pulled by your audio callback
let music = try engine.makeSession(named: "music", category: .playback)
let song = try music.makeToneSource(frequency: 440, amplitude: 0.5)
try song.play()
try song.setGain(0, rampFrames: 4_800, at: .frame(48_000)) // a 0.1 s fade-out, 1 s from now

var block = [Float](repeating: 0, count: 256 * engine.channelCount)
for _ in 0..<400 { // your audio callback, 256 frames at a time
    block.withUnsafeMutableBufferPointer { _ = engine.render(into: $0.baseAddress!, frameCount: 256) }
}
for event in engine.pollEvents() { print(event) }
print("rendered \(engine.framesRendered) frames; the tone is \(try song.state)")
