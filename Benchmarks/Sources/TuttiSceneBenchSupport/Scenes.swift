import Foundation
import TuttiDSP
import TuttiScene

/// The offline-render scene of the benchmarks (SceneBenchmarks, RenderProfile scene).

/// Eight 48 kHz stereo 16-bit WAV files (7…11 s, so the loops do not line up), written into
/// a temporary folder the first time (≈ 12 MB, kept for the next runs; the writes are atomic).
public let audioFolder: String = {
    let dir = NSTemporaryDirectory() + "tutti-bench-scene-v1"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for k in 0..<8 where !FileManager.default.fileExists(atPath: "\(dir)/s\(k).wav") {
        let frames = 48_000 * (7 + k % 5)
        var samples = [Float](repeating: 0, count: frames * 2)
        let f = 110.0 * Double(k + 2)
        for i in 0..<frames {
            let t = Double(i) / 48_000
            let env = 0.5 + 0.5 * sin(2 * Double.pi * 0.5 * t)
            let s = Float(0.3 * env * sin(2 * Double.pi * f * t))
            samples[2 * i] = s
            samples[2 * i + 1] = s * 0.9
        }
        let writer = try! AtomicWAVWriter(path: "\(dir)/s\(k).wav", sampleRate: 48_000, channelCount: 2, format: .s16)
        try! samples.withUnsafeBufferPointer { try writer.write($0) }
        try! writer.commit()
    }
    return dir
}()

public func sceneJSON(duration: Int) -> String {
    var events: [String] = [
        #"{"at": 0, "session": "music", "action": "activate"}"#,
        #"{"at": 0, "session": "game", "action": "activate"}"#,
        #"{"at": 0, "session": "podcast", "action": "activate"}"#,
    ]
    for s in ["m1", "m2", "g1", "g2", "g3", "p1", "p2"] { events.append(#"{"at": 0, "source": "\#(s)", "action": "play"}"#) }
    var t = 10
    while t + 6 < duration {
        events.append(#"{"at": \#(t), "session": "nav", "action": "activate"}"#)
        events.append(#"{"at": \#(t), "source": "n1", "action": "play"}"#)
        events.append(#"{"at": \#(t + 5), "session": "nav", "action": "deactivate", "notifyOthers": true}"#)
        events.append(#"{"at": \#(t + 7), "device": "volume", "value": \#(t % 40 == 10 ? 0.6 : 0.9)}"#)
        t += 20
    }
    let sources = [
        ("m1", "music"), ("m2", "music"), ("g1", "game"), ("g2", "game"), ("g3", "game"),
        ("p1", "podcast"), ("p2", "podcast"), ("n1", "nav"),
    ].enumerated().map { k, s in
        #"{"id": "\#(s.0)", "session": "\#(s.1)", "file": "s\#(k).wav", "loop": true, "gain": 0.5}"#
    }
    return """
        {
          "engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256},
          "duration": \(duration),
          "sessions": [
            {"id": "music", "category": "playback", "options": ["mixWithOthers"]},
            {"id": "game", "category": "playback", "options": ["mixWithOthers"]},
            {"id": "podcast", "category": "playback", "options": ["mixWithOthers"]},
            {"id": "nav", "category": "playback", "options": ["duckOthers"]}
          ],
          "sources": [\(sources.joined(separator: ",\n    "))],
          "events": [\(events.joined(separator: ",\n    "))]
        }
        """
}
