import Foundation
import Testing
import TuttiTestSupport

/// docs/architecture.md against the code: the modules it names are the targets of
/// Package.swift (in Sources/), and its `imports` block has one arrow per import between them.
@Suite("docs/architecture.md")
struct ArchitectureTests {
    /// What the doc says: the modules of its table, the arrows of its `imports` block, and
    /// lines of that block that are not `A → B`.
    struct Drawing {
        var tableModules: [String] = []
        var arrows: [(from: String, to: String)] = []
        var badLines: [String] = []
    }

    /// Reads the table of the section "## Modules" (the names in backticks of each row's first
    /// cell) and the fenced block marked ```imports.
    static func drawing(of doc: String) -> Drawing {
        var d = Drawing()
        var section = ""
        var inBlock = false
        for raw in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if inBlock {
                if line.hasPrefix("```") {
                    inBlock = false
                } else if !line.isEmpty {
                    let sides = line.components(separatedBy: "→").map { $0.trimmingCharacters(in: .whitespaces) }
                    if sides.count == 2, !sides[0].isEmpty, !sides[1].isEmpty, !sides.contains(where: { $0.contains(" ") }) {
                        d.arrows.append((sides[0], sides[1]))
                    } else {
                        d.badLines.append(line)
                    }
                }
                continue
            }
            if line == "```imports" {
                inBlock = true
            } else if line.hasPrefix("## ") {
                section = line
            } else if section == "## Modules", line.hasPrefix("| `") {
                let firstCell = line.dropFirst().prefix { $0 != "|" }
                d.tableModules += firstCell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
        }
        return d
    }

    /// The targets of `package` whose sources are Sources/<name> (no `path:` elsewhere): every
    /// `.target`, `.executableTarget` and `.systemLibrary`, not the test targets or test support.
    static func sourceTargets(package: String) -> Set<String> {
        var names: Set<String> = []
        for kind in [".target(", ".executableTarget(", ".systemLibrary("] {
            for piece in package.components(separatedBy: kind).dropFirst() {
                let declaration = piece.prefix { $0 != "\n" }
                guard let open = declaration.range(of: "name: \"") else { continue }
                let name = declaration[open.upperBound...].prefix { $0 != "\"" }
                if declaration.contains("path:") && !declaration.contains("path: \"Sources/\(name)\"") { continue }
                names.insert(String(name))
            }
        }
        return names
    }

    /// The modules a Swift file imports (`import M`, `@_exported import M`, `import struct M.T`,
    /// with or without an access level).
    static func imports(in source: String) -> Set<String> {
        var modules: Set<String> = []
        let attributesAndModifiers: Set<String> = ["public", "package", "internal", "fileprivate", "private"]
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        for line in source.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)[...]
            while let w = words.first, w.hasPrefix("@") || attributesAndModifiers.contains(w) { words = words.dropFirst() }
            guard words.first == "import" else { continue }
            words = words.dropFirst()
            if let w = words.first, kinds.contains(w) { words = words.dropFirst() }
            if let m = words.first?.split(separator: ".").first { modules.insert(String(m)) }
        }
        return modules
    }

    /// Everything the drawing gets wrong about `targets` and their `imports` (module → the
    /// package's modules it imports); empty when it is right.
    static func problems(_ d: Drawing, targets: Set<String>, imports: [String: Set<String>]) -> [String] {
        var found: [String] = d.badLines.map { "imports block: \"\($0)\" is not one arrow `A → B`" }
        let drawn = Set(d.arrows.map { "\($0.from) → \($0.to)" })
        if drawn.count != d.arrows.count { found.append("imports block: an arrow is drawn twice") }
        let named = Set(d.tableModules + d.arrows.flatMap { [$0.from, $0.to] })
        for m in named.subtracting(targets).sorted() { found.append("\(m): named in the doc, but no target of Package.swift in Sources/") }
        for m in targets.subtracting(d.tableModules).sorted() { found.append("\(m): a target, missing from the table of ## Modules") }
        for a in d.arrows where targets.contains(a.from) && targets.contains(a.to) && !(imports[a.from] ?? []).contains(a.to) {
            found.append("\(a.from) → \(a.to): drawn, but no file of Sources/\(a.from) imports \(a.to)")
        }
        for (from, modules) in imports.sorted(by: { $0.key < $1.key }) {
            for to in modules.sorted() where to != from && targets.contains(to) && !drawn.contains("\(from) → \(to)") {
                found.append("\(from) → \(to): Sources/\(from) imports \(to), but the imports block has no such arrow")
            }
        }
        return found
    }

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOfFile: Tool.repositoryRoot + "/" + relativePath, encoding: .utf8)
    }

    /// The project modules each source target imports, read from its Swift files.
    static func sourceImports(targets: Set<String>) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for target in targets {
            let folder = Tool.repositoryRoot + "/Sources/" + target
            var modules: Set<String> = []
            for case let file as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] where file.hasSuffix(".swift") {
                modules.formUnion(imports(in: try String(contentsOfFile: folder + "/" + file, encoding: .utf8)))
            }
            result[target] = modules.intersection(targets)
        }
        return result
    }

    @Test("every module named is a target, every arrow an import, every import an arrow")
    func docMatchesTheCode() throws {
        let targets = Self.sourceTargets(package: try Self.read("Package.swift"))
        // The package as it stands has these; finding them says the parsing works.
        #expect(targets.isSuperset(of: ["Tutti", "TuttiEngine", "TuttiPolicy", "tutti", "CTuttiKernels", "CALSA"]), "\(targets.sorted())")
        #expect(!targets.contains("TuttiTestSupport") && !targets.contains("TuttiTests"))
        for t in targets {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: Tool.repositoryRoot + "/Sources/" + t, isDirectory: &isFolder)
            #expect(exists && isFolder.boolValue, "Sources/\(t) is not a folder")
        }
        let imports = try Self.sourceImports(targets: targets)
        #expect(imports["Tutti"]?.contains("TuttiEngine") == true, "\(imports["Tutti"] ?? [])")
        let drawing = Self.drawing(of: try Self.read("docs/architecture.md"))
        #expect(drawing.arrows.count >= 10, "the imports block of docs/architecture.md was not found")
        let problems = Self.problems(drawing, targets: targets, imports: imports)
        #expect(problems.isEmpty, "docs/architecture.md:\n\(problems.joined(separator: "\n"))")
    }

    @Test("the check reports a made-up module, an arrow without an import, a missing arrow, a bad line")
    func checkCanFail() {
        let doc = """
            ## Modules

            | module | what |
            |---|---|
            | `A`, `B` | two |
            | `Ghost` | not a target |

            ```imports
            A → B
            B → A
            A → Ghost
            A B
            ```
            """
        let d = Self.drawing(of: doc)
        #expect(d.tableModules == ["A", "B", "Ghost"])
        #expect(d.arrows.count == 3 && d.badLines == ["A B"])
        let problems = Self.problems(d, targets: ["A", "B", "C"], imports: ["A": ["B", "C"], "B": [], "C": []])
        #expect(
            problems.sorted() == [
                "A → C: Sources/A imports C, but the imports block has no such arrow",
                "B → A: drawn, but no file of Sources/B imports A",
                "C: a target, missing from the table of ## Modules",
                "Ghost: named in the doc, but no target of Package.swift in Sources/",
                "imports block: \"A B\" is not one arrow `A → B`",
            ], "\(problems)")
    }

    @Test("imports are read with attributes, access levels and kinds")
    func importForms() {
        let source = """
            import Glibc
            @_exported import TuttiDSP
            package import TuttiEngine
            @preconcurrency import Dispatch
            import struct TuttiPolicy.RenderView
                import Musl
            // import Commented
            let important = 1
            """
        #expect(Self.imports(in: source) == ["Glibc", "TuttiDSP", "TuttiEngine", "Dispatch", "TuttiPolicy", "Musl"])
    }

    @Test("Package.swift targets: source targets only")
    func targetParsing() {
        let package = """
            .systemLibrary(name: "CALSA", pkgConfig: "alsa"),
            .target(name: "TuttiDSP", dependencies: ["CTuttiKernels"]),
            .executableTarget(name: "tutti", dependencies: [
            .target(name: "CTuttiTestSupport", path: "Tests/CTuttiTestSupport"),
            .testTarget(name: "TuttiDSPTests", dependencies: ["TuttiDSP"]),
            """
        #expect(Self.sourceTargets(package: package) == ["CALSA", "TuttiDSP", "tutti"])
    }
}
