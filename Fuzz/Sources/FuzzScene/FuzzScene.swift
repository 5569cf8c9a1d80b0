import Foundation
import TuttiScene

/// libFuzzer entry: the bytes as a scene file. Decoding must end in a scene or a
/// `SceneError` (never a crash, a hang or a runaway allocation); a short scene that decodes
/// is also built and rendered, which drives the policy and the engine with the fuzzed
/// timeline. Relative audio paths resolve against a folder that does not exist.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScene(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let scene = try? Scene.decode(json: text, baseDirectory: "/nonexistent-tutti-fuzz") else { return 0 }
    // Rendering is the slow part: only short scenes with a bounded graph.
    guard scene.durationFrames <= 24_000, scene.sources.count + scene.events.count <= 256 else { return 0 }
    guard let renderer = try? OfflineRenderer(scene: scene) else { return 0 }
    var sum: Float = 0
    try? renderer.render { block in for x in block { sum += x } }
    if !sum.isFinite { fatalError("non-finite output from a decoded scene") }
    return 0
}
