import Glibc
import TuttiEngine

/// A backend's system library opened at run time (`dlopen`), the way miniaudio and PortAudio
/// do: Tutti's library and tool do not link alsa-lib or libjack, so they run where neither is
/// installed, and a backend whose library is missing fails when asked for, with an error
/// naming the package to install. The library stays loaded for the life of the process.
///
/// Value type, kept by the call that opens it to fill a function table (not `Sendable`: the
/// tables it fills are); `dlopen` and `dlsym` are thread-safe, so any thread, not a render
/// thread.
public struct SystemLibrary {
    /// The `dlopen` handle.
    public let handle: UnsafeMutableRawPointer
    /// The file name it was opened by (`libasound.so.2`).
    public let fileName: String
    /// The backend it serves, as errors name it (`ALSA`).
    public let backend: String
    /// The Debian packages that install it, as errors name them.
    public let packages: String

    /// Opens `fileName` (a soname, searched where the dynamic linker searches) with
    /// `RTLD_NOW | RTLD_LOCAL`. A missing file is a `.device` error saying which `backend` is
    /// unavailable and that `packages` installs it. Any thread, not real-time.
    public static func open(_ fileName: String, backend: String, packages: String) throws(TuttiError) -> SystemLibrary {
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw TuttiError(
                .device,
                "\(backend) backend unavailable: \(fileName) could not be loaded (\(reason)); install the Debian package \(packages)")
        }
        return SystemLibrary(handle: handle, fileName: fileName, backend: backend, packages: packages)
    }

    /// The function `symbol` of the library as `F` (a `@convention(c)` function type of the
    /// C declaration's exact signature: nothing checks it). A library without it (too old) is
    /// a `.device` error naming the symbol. Any thread, not real-time.
    public func function<F>(_ symbol: String, as type: F.Type = F.self) throws(TuttiError) -> F {
        unsafeBitCast(try address(symbol), to: F.self)
    }

    /// The address of `symbol` in the library (for a C function Swift cannot call through a
    /// typed pointer, a variadic one). Same errors as `function(_:as:)`. Any thread, not real-time.
    public func address(_ symbol: String) throws(TuttiError) -> UnsafeMutableRawPointer {
        guard let address = dlsym(handle, symbol) else {
            throw TuttiError(
                .device, "\(backend) backend unavailable: \(fileName) has no \(symbol); install a newer \(packages)")
        }
        return address
    }
}

/// A backend's table of C functions taken from its system library (`ALSAFunctions`,
/// `JACKFunctions`): what the library is called and how the table is made from it; `load`
/// comes with it. Value types: any thread.
public protocol SystemFunctionTable: Sendable {
    /// The library's file name, as `dlopen` finds it.
    static var libraryFileName: String { get }
    /// The Debian packages that install it (errors name them).
    static var libraryPackages: String { get }
    /// The backend, as errors name it (`ALSA`).
    static var backendName: String { get }
    /// The table of `library`'s functions; throws `.device` naming a function the library
    /// lacks. Any thread, not real-time.
    init(library: SystemLibrary) throws(TuttiError)
}

extension SystemFunctionTable {
    /// Opens the library under `fileName` (default: `libraryFileName`) and takes every function
    /// of the table from it. A library that is not there is a `.device` error naming the
    /// package to install. Opened anew each call: a table's `system` is the shared one. Any
    /// thread, not real-time.
    public static func load(fileName: String = libraryFileName) throws(TuttiError) -> Self {
        try Self(library: SystemLibrary.open(fileName, backend: backendName, packages: libraryPackages))
    }

    /// `load()`'s outcome, for a table's `system` (kept in a static let: loaded once per
    /// process, thread-safe). Any thread, not real-time.
    public static func loadOnce() -> Result<Self, TuttiError> {
        do throws(TuttiError) { return .success(try load()) } catch { return .failure(error) }
    }
}
