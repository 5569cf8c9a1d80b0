import Foundation

/// One-line warnings on stderr (`tutti: warning: …`): deprecated flags and scene keys. Main
/// thread.
enum Warnings {
    /// `tutti: warning: LINE` on stderr.
    static func print(_ line: String) {
        FileHandle.standardError.write(Data("tutti: warning: \(line)\n".utf8))
    }

    /// The warning of a deprecated flag of `tutti COMMAND` still read under its old name.
    static func deprecatedFlag(_ command: String, _ flag: String, use replacement: String) {
        print("tutti \(command) \(flag) is deprecated, use \(replacement) (the same; the old flag goes in the next release)")
    }
}
