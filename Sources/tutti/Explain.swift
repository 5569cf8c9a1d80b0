import ArgumentParser
import TuttiScene

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Why is a session ducked, silent or paused? Every session's state at a moment of a scene, and the events that put it there.")

    @Argument(help: "The scene file.")
    var scene: String

    @Option(help: "The moment, in seconds from the start (events at that time included).")
    var at: Double

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        do {
            let s = try OfflineRenderer.loadScene(path: scene)
            for line in s.warnings { Warnings.print(line) }
            let e = try Explanation.explain(scene: s, at: at)
            print(json ? JSONWriter.string(e.json) : e.text, terminator: json ? "\n" : "")
        } catch {
            throw fail(error)
        }
    }
}
