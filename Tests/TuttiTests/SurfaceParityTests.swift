import Foundation
import Testing
import TuttiTestSupport

/// The Swift and C surfaces offer the same things, or say why not: every public member of
/// `AudioEngine`, `SessionHandle` and `SourceHandle` and every function of `include/tutti.h`
/// has a row in docs/api-parity.md, and every C function a row names exists.
@Suite struct SurfaceParityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Type.member` for every public func, var and init of the host API's three types.
    static func swiftMembers() throws -> Set<String> {
        let files = ["AudioEngine", "Handles", "InputFrames", "StreamFrames", "Output", "EventDelivery"]
        let types: Set = ["AudioEngine", "SessionHandle", "SourceHandle"]
        var members = Set<String>()
        for file in files {
            let text = try String(contentsOf: root.appending(path: "Sources/Tutti/\(file).swift"), encoding: .utf8)
            var current = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let m = line.firstMatch(of: /^(?:public )?(?:final class|struct|extension|enum) ([A-Za-z]+)/) {
                    current = String(m.1)
                } else if types.contains(current),
                    let m = line.firstMatch(of: /^    public (?:static )?(?:func|var) ([A-Za-z_]+|==)/)
                {
                    members.insert("\(current).\(m.1)")
                } else if types.contains(current), line.hasPrefix("    public init") {
                    members.insert("\(current).init")
                }
            }
        }
        return members
    }

    static func headerFunctions() throws -> Set<String> {
        let header = try String(contentsOf: root.appending(path: "include/tutti.h"), encoding: .utf8)
        return Set(header.matches(of: /\b(tutti_[a-z0-9_]+)\(/).map { String($0.1) })
    }

    /// (left column, right column) of every table row of docs/api-parity.md.
    static func rows() throws -> [(String, String)] {
        let page = try String(contentsOf: root.appending(path: "docs/api-parity.md"), encoding: .utf8)
        return page.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[1].hasPrefix("`") else { return nil }
            return (cells[1], cells[2])
        }
    }

    static func names(in cell: String) -> [String] { cell.matches(of: /`([^`]+)`/).map { String($0.1) } }

    @Test func everySwiftMemberHasARow() throws {
        let listed = Set(try Self.rows().flatMap { Self.names(in: $0.0) })
        let missing = try Self.swiftMembers().subtracting(listed).sorted()
        #expect(missing.isEmpty, "public Swift members with no row in docs/api-parity.md: \(missing)")
        #expect(try Self.swiftMembers().count > 60)
    }

    @Test func everyCFunctionHasARowAndEveryRowNamesRealOnes() throws {
        let functions = try Self.headerFunctions()
        let named = Set(try Self.rows().flatMap { Self.names(in: $0.0) + Self.names(in: $0.1) }.filter { $0.hasPrefix("tutti_") })
        let unlisted = functions.subtracting(named).sorted()
        #expect(unlisted.isEmpty, "C functions with no row in docs/api-parity.md: \(unlisted)")
        let unknown = named.subtracting(functions).sorted()
        #expect(unknown.isEmpty, "rows naming C functions the header does not declare: \(unknown)")
        #expect(functions.count > 50)
    }

    @Test func aGapSaysWhy() throws {
        for (swift, c) in try Self.rows() where c.hasPrefix("none") {
            #expect(c.count > "none yet".count + 3, "\(swift): a gap needs its reason")
        }
    }
}
