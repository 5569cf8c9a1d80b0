import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// alsa-lib and libjack are opened when a backend is used (`dlopen`), not linked: a missing
/// library is an error naming the package, and the tool runs without either.
@Suite struct LibraryLoadingTests {
    @Test func aMissingAlsaLibIsADeviceErrorNamingThePackage() {
        do {
            _ = try ALSAFunctions.load(fileName: "libtutti-no-such-library.so.2")
            Issue.record("loading a library that does not exist succeeded")
        } catch {
            #expect(error.code == .device)
            #expect(error.message.hasPrefix("ALSA backend unavailable: libtutti-no-such-library.so.2 could not be loaded ("))
            // dlerror's reason, then the package; no command-line flag in a library message.
            #expect(error.message.contains("No such file"))
            #expect(
                error.message.hasSuffix("; install the Debian package libasound2 (named libasound2t64 since Debian 13 and Ubuntu 24.04)"))
            #expect(!error.message.contains("--"))
        }
    }

    @Test func aLibraryWithoutTheFunctionsNamesTheFirstMissingOne() throws {
        // libm is there on every system and has no alsa-lib function.
        let libm = try SystemLibrary.open("libm.so.6", backend: "ALSA", packages: ALSAFunctions.libraryPackages)
        #expect(
            throws: TuttiError(
                .device, "ALSA backend unavailable: libm.so.6 has no snd_config_top; install a newer \(ALSAFunctions.libraryPackages)")
        ) {
            try ALSAFunctions(library: libm)
        }
    }

    @Test func theSystemTableCallsTheRealAlsaLib() throws {
        let f = try ALSAFunctions.system
        // snd_strerror through the looked-up pointer: alsa-lib's own text for -EINVAL and
        // for one of its own codes (not a libc message).
        #expect(f.message(-EINVAL) == String(cString: Glibc.strerror(EINVAL)))
        #expect(f.message(-500_000) == "Sound protocol is not compatible")
        // The lconf open path with a loaded configuration: alsa-lib's "null" PCM defined by it.
        var config = ALSAOutputConfiguration(device: "tuttinull")
        config.alsaConfig = "pcm.tuttinull { type null }"
        let device = try PCMDevice.open(config, sampleRate: 48_000, channelCount: 2, functions: f)
        #expect(device.negotiated.sampleRate == 48_000)
        device.close(f)
    }

    /// Every dlsym'd entry of both tables has its C declaration's type (the script
    /// type-checks `let _: <entry's type> = <C function>` against the headers).
    @Test(.enabled(if: swiftcPath != nil, "swiftc is not on PATH"))
    func everyTableEntryHasTheTypeOfItsCDeclaration() throws {
        let run = try Tool.run(["/bin/bash", Tool.repositoryRoot + "/scripts/check-function-tables.sh"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("75 functions, each the type of its C declaration"))
    }

    /// `ldd` of the built `tutti`: libsndfile (linked) is listed, alsa-lib and libjack are not.
    @Test(.enabled(if: Tool.tutti != nil, "the tutti executable is not built"))
    func theToolDoesNotLinkAlsaLibOrLibjack() throws {
        let ldd = try Tool.run(["/usr/bin/ldd", Tool.tuttiPath])
        #expect(ldd.status == 0)
        #expect(ldd.stdout.contains("libsndfile"))
        #expect(!ldd.stdout.contains("libasound"))
        #expect(!ldd.stdout.contains("libjack"))
    }
}

private let swiftcPath: String? = (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin").split(separator: ":")
    .map { "\($0)/swiftc" }.first { access($0, X_OK) == 0 }
