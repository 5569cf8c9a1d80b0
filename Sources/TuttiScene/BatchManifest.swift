import Foundation
import TuttiDSP

/// A batch of offline renders: a JSON Lines file, one render per line (docs/scaling.md,
/// "Batch renders").
///
/// Each non-blank line is an object: `scene` and `output` (required), `events`, `format`
/// (`f32`, `s16`, `s24`) and `resampler` (a ``ResamplerQuality`` name), optional. Paths are
/// relative to the manifest's folder. Entries are numbered from 0 in the order of their
/// lines; a shard `I/N` takes the entries whose number is I modulo N, so N runners given
/// `0/N` … `N-1/N` render every entry exactly once with nothing shared between them.
///
/// Value type: any thread.
public struct BatchManifest: Sendable {
    /// One render of the batch.
    public struct Entry: Sendable, Equatable {
        /// The entry's number (0-based, in line order, blank lines not counted).
        public var index: Int
        /// Its line in the manifest (1-based), as errors and reports name it.
        public var line: Int
        /// The scene file, resolved against the manifest's folder.
        public var scene: String
        /// The WAV file to write, resolved against the manifest's folder.
        public var output: String
        /// The events log to write (JSON lines), resolved; nil: none.
        public var events: String?
        /// The sample format; nil: the scene's (or the batch's default).
        public var format: SampleFormat?
        /// The converter for files at another rate; nil: the scene's (or the batch's default).
        public var resampler: ResamplerQuality?
    }

    /// The manifest file, as given.
    public var path: String
    /// Every entry, in line order.
    public var entries: [Entry]

    /// The names a line may use.
    static let keys: Set<String> = ["scene", "output", "events", "format", "resampler"]

    /// The `format` names a line may use (the CLI's `--format` names).
    static let formats: [String: SampleFormat] = ["f32": .float32, "float32": .float32, "s16": .s16, "s24": .s24]

    /// Reads and checks the whole manifest before anything is rendered: every line an object
    /// with known keys of the right types, no output (or events log) named twice, and — unless
    /// `allowWritesAnywhere` — every file an entry writes inside the manifest's folder (symbolic
    /// links resolved; an existing file must be a regular file). A scene file that does not
    /// exist is not an error here: that entry fails when it is rendered, the others go on.
    /// Throws `SceneError` whose place is `MANIFEST:LINE` (and the key). Control thread.
    public init(path: String, allowWritesAnywhere: Bool = false) throws(SceneError) {
        self.path = path
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw SceneError(path, "cannot read the batch manifest: \((error as NSError).localizedDescription)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") || folder.isEmpty ? p : folder + "/" + p
        }
        var entries: [Entry] = []
        var written: [String: Int] = [:] // absolute output path → line
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let place = "\(path):\(lineNumber)"
            guard !raw.allSatisfy(\.isWhitespace) else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any] else {
                throw SceneError(place, "not a JSON object (a manifest has one {\"scene\": …, \"output\": …} per line)")
            }
            if let unknown = object.keys.sorted().first(where: { !Self.keys.contains($0) }) {
                throw SceneError(place + ".\(unknown)", "unknown key (expected: \(Self.keys.sorted().joined(separator: ", ")))")
            }
            func string(_ key: String, required: Bool) throws(SceneError) -> String? {
                guard let value = object[key] else {
                    if required { throw SceneError(place, "\"\(key)\" is missing") }
                    return nil
                }
                guard let s = value as? String, !s.isEmpty else { throw SceneError(place + ".\(key)", "expected a non-empty string") }
                return s
            }
            let scene = try string("scene", required: true)!
            let output = resolve(try string("output", required: true)!)
            let events = try string("events", required: false).map(resolve)
            var format: SampleFormat?
            if let name = try string("format", required: false) {
                guard let f = Self.formats[name] else {
                    throw SceneError(place + ".format", "unknown format \"\(name)\" (expected: f32, s16, s24)")
                }
                format = f
            }
            var resampler: ResamplerQuality?
            if let name = try string("resampler", required: false) {
                guard let q = ResamplerQuality(rawValue: name) else {
                    throw SceneError(
                        place + ".resampler",
                        "unknown resampler \"\(name)\" (expected: \(ResamplerQuality.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                resampler = q
            }
            for (key, file) in [("output", output)] + (events.map { [("events", $0)] } ?? []) {
                let canonical = (file as NSString).standardizingPath
                if let first = written[canonical] {
                    throw SceneError(place + ".\(key)", "\"\(file)\" is also written by line \(first): each file is written by one entry")
                }
                written[canonical] = lineNumber
                if !allowWritesAnywhere {
                    try Scene.checkConfined(
                        file, place: place + ".\(key)", inside: [folder.isEmpty ? "." : folder], whereAllowed: "the manifest's folder",
                        rule: "a batch writes only there unless it allows writes anywhere (tutti: --allow-writes-anywhere)")
                }
            }
            entries.append(
                Entry(
                    index: entries.count, line: lineNumber, scene: resolve(scene), output: output, events: events, format: format,
                    resampler: resampler))
        }
        guard !entries.isEmpty else { throw SceneError(path, "the batch manifest has no entry") }
        self.entries = entries
    }

    /// A shard `I/N` of a batch: runner `index` of `count`.
    public struct Shard: Sendable, Equatable, CustomStringConvertible {
        /// Which runner this is, 0 ..< `count`.
        public var index: Int
        /// How many runners share the batch, ≥ 1.
        public var count: Int

        /// Parses `I/N` (0 ≤ I < N); a malformed or out-of-range value throws `SceneError`
        /// at `place` (e.g. the option's name). Any thread.
        public init(_ text: String, place: String = "--shard") throws(SceneError) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
                throw SceneError(place, "\"\(text)\": expected I/N, e.g. 0/4")
            }
            guard n >= 1 else { throw SceneError(place, "\"\(text)\": N must be at least 1") }
            guard (0..<n).contains(i) else { throw SceneError(place, "\"\(text)\": I must be in 0…\(n - 1)") }
            index = i
            count = n
        }

        /// `I/N`.
        public var description: String { "\(index)/\(count)" }
    }

    /// The entries of `shard` (every entry when nil), in line order. Any thread.
    public func entries(in shard: Shard?) -> [Entry] {
        guard let shard else { return entries }
        return entries.filter { $0.index % shard.count == shard.index }
    }
}
