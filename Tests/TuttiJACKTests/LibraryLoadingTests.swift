import Glibc
import Testing
import TuttiEngine
import TuttiJACK
import TuttiOutput

/// libjack is opened when the JACK backend is used (`dlopen`), not linked: a missing library
/// is an error naming the package. None of these needs a JACK server.
@Suite struct JACKLibraryLoadingTests {
    @Test func aMissingLibjackIsADeviceErrorNamingThePackage() {
        do {
            _ = try JACKFunctions.load(fileName: "libtutti-no-such-library.so.0")
            Issue.record("loading a library that does not exist succeeded")
        } catch {
            #expect(error.code == .device)
            #expect(error.message.hasPrefix("JACK backend unavailable: libtutti-no-such-library.so.0 could not be loaded ("))
            #expect(error.message.hasSuffix("; install the Debian package libjack-jackd2-0"))
            #expect(!error.message.contains("--"))
        }
    }

    @Test func aLibraryWithoutTheFunctionsNamesTheFirstMissingOne() throws {
        let libm = try SystemLibrary.open("libm.so.6", backend: "JACK", packages: JACKFunctions.libraryPackages)
        #expect(
            throws: TuttiError(.device, "JACK backend unavailable: libm.so.6 has no jack_client_open; install a newer libjack-jackd2-0")
        ) {
            try JACKFunctions(library: libm)
        }
    }

    /// The variadic `jack_client_open` through its looked-up address and the shim, with a
    /// server name: no such server is `noServer` (libjack answered, nothing crashed).
    @Test func openingAClientGoesThroughTheLoadedLibjack() throws {
        let functions = try JACKFunctions.system
        let name = "tutti-no-server-\(getpid())"
        #expect(throws: JACKError.noServer(serverName: name)) {
            try JACKClient(configuration: JACKOutputConfiguration(clientName: "tutti-load", serverName: name), functions: functions)
        }
    }
}
