import CSndFile
import Foundation
import Tutti
import TuttiDSP
import TuttiScene
import TuttiTestSupport

/// Read a WAV back as float with its format.
func readWAV(_ path: String) -> (samples: [Float], rate: Int, channels: Int, format: Int32) {
    let b = try! AudioFileReader.read(path: path)
    var info = SF_INFO()
    let f = sf_open(path, Int32(SFM_READ), &info)!
    sf_close(f)
    return (Array(b.samples), Int(b.sampleRate), b.channelCount, info.format)
}

/// Write a scene and render it; returns the output path.
@discardableResult
func renderScene(_ json: String, in dir: String, format: SampleFormat? = nil, output: String = "out.wav", events: String? = nil) throws
    -> String
{
    let scenePath = dir + "/scene.json"
    try json.write(toFile: scenePath, atomically: true, encoding: .utf8)
    let out = dir + "/" + output
    _ = try OfflineRenderer.renderFile(scenePath: scenePath, outputPath: out, eventsPath: events.map { dir + "/" + $0 }, format: format)
    return out
}
