// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The function table mirrors libjack's C names on purpose.
import CJACK
import Glibc
import TuttiEngine
import TuttiOutput

/// Every libjack call the backend makes, as plain C function pointers: ``system`` holds the
/// real functions, taken from libjack opened at run time (`dlopen`: Tutti does not link it,
/// so it runs without it until JACK is asked for); a test may swap in fakes. C function
/// pointers (not closures) so JACK's process thread calls them without reference counting.
///
/// Value type: any thread. A `JACKClient` keeps the table it was opened with.
public struct JACKFunctions: SystemFunctionTable {
    /// A `jack_client_t *`.
    public typealias Client = OpaquePointer
    /// A `jack_port_t *`.
    public typealias Port = OpaquePointer
    /// A message handler (`jack_set_error_function`).
    public typealias MessageFunction = @convention(c) (UnsafePointer<CChar>?) -> Void

    /// libjack's `jack_client_open`, held as a C function of no arguments: it is variadic,
    /// which Swift can neither call nor type. ``openClient(_:options:status:serverName:)``
    /// calls it through the CJACK shim's fixed-argument forms, which cast it back.
    public var client_open: @convention(c) () -> Void
    /// Calls libjack's `jack_client_close`.
    public var client_close: @convention(c) (Client?) -> Int32
    /// Calls libjack's `jack_get_client_name`.
    public var get_client_name: @convention(c) (Client?) -> UnsafeMutablePointer<CChar>?
    /// Calls libjack's `jack_get_sample_rate` (Hz).
    public var get_sample_rate: @convention(c) (Client?) -> jack_nframes_t
    /// Calls libjack's `jack_get_buffer_size` (frames per cycle).
    public var get_buffer_size: @convention(c) (Client?) -> jack_nframes_t
    /// Calls libjack's `jack_is_realtime`.
    public var is_realtime: @convention(c) (Client?) -> Int32
    /// Calls libjack's `jack_client_real_time_priority`.
    public var client_real_time_priority: @convention(c) (Client?) -> Int32
    /// Calls libjack's `jack_activate`.
    public var activate: @convention(c) (Client?) -> Int32
    /// Calls libjack's `jack_set_process_callback`.
    public var set_process_callback: @convention(c) (Client?, JackProcessCallback?, UnsafeMutableRawPointer?) -> Int32
    /// Calls libjack's `jack_set_xrun_callback`.
    public var set_xrun_callback: @convention(c) (Client?, JackXRunCallback?, UnsafeMutableRawPointer?) -> Int32
    /// Calls libjack's `jack_set_buffer_size_callback`.
    public var set_buffer_size_callback: @convention(c) (Client?, JackBufferSizeCallback?, UnsafeMutableRawPointer?) -> Int32
    /// Calls libjack's `jack_on_info_shutdown`.
    public var on_info_shutdown: @convention(c) (Client?, JackInfoShutdownCallback?, UnsafeMutableRawPointer?) -> Void
    /// Calls libjack's `jack_set_thread_init_callback`.
    public var set_thread_init_callback: @convention(c) (Client?, JackThreadInitCallback?, UnsafeMutableRawPointer?) -> Int32
    /// Calls libjack's `jack_client_thread_id` (the process thread's `pthread_t`).
    public var client_thread_id: @convention(c) (Client?) -> pthread_t
    /// Calls libjack's `jack_set_error_function` (process-wide).
    public var set_error_function: @convention(c) (MessageFunction?) -> Void
    /// Calls libjack's `jack_set_info_function` (process-wide).
    public var set_info_function: @convention(c) (MessageFunction?) -> Void

    // Ports.
    /// Calls libjack's `jack_port_register`.
    public var port_register: @convention(c) (Client?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt, UInt) -> Port?
    /// Calls libjack's `jack_port_name`.
    public var port_name: @convention(c) (Port?) -> UnsafePointer<CChar>?
    /// Calls libjack's `jack_port_by_name`.
    public var port_by_name: @convention(c) (Client?, UnsafePointer<CChar>?) -> Port?
    /// Calls libjack's `jack_port_flags`.
    public var port_flags: @convention(c) (Port?) -> Int32
    /// Calls libjack's `jack_get_ports` (the list is freed with `free`).
    public var get_ports:
        @convention(c) (Client?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt) -> UnsafeMutablePointer<UnsafePointer<CChar>?>?
    /// Calls libjack's `jack_free`.
    public var free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// Calls libjack's `jack_connect`.
    public var connect: @convention(c) (Client?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    /// Calls libjack's `jack_port_get_latency_range`.
    public var port_get_latency_range:
        @convention(c) (Port?, jack_latency_callback_mode_t, UnsafeMutablePointer<jack_latency_range_t>?) -> Void

    // The process thread.
    /// Calls libjack's `jack_port_get_buffer`; JACK's process thread calls it.
    public var port_get_buffer: @convention(c) (Port?, jack_nframes_t) -> UnsafeMutableRawPointer?
    /// Calls libjack's `jack_last_frame_time`; JACK's process thread calls it.
    public var last_frame_time: @convention(c) (Client?) -> jack_nframes_t

    /// libjack's file name, as `dlopen` finds it.
    public static let libraryFileName = "libjack.so.0"
    /// The Debian package that installs it (errors name it).
    public static let libraryPackages = "libjack-jackd2-0"
    /// The backend, as errors name it.
    public static let backendName = "JACK"

    /// The table of `library`'s functions (libjack's names: `port_register` is
    /// `jack_port_register`). Throws `.device` naming a function the library lacks. Any
    /// thread, not real-time.
    public init(library: SystemLibrary) throws(TuttiError) {
        // Every field is libjack's function of that name with the `jack_` prefix.
        func jack<F>(_ name: String) throws(TuttiError) -> F { try library.function("jack_" + name) }
        client_open = unsafeBitCast(try library.address("jack_client_open"), to: (@convention(c) () -> Void).self)
        client_close = try jack("client_close")
        get_client_name = try jack("get_client_name")
        get_sample_rate = try jack("get_sample_rate")
        get_buffer_size = try jack("get_buffer_size")
        is_realtime = try jack("is_realtime")
        client_real_time_priority = try jack("client_real_time_priority")
        activate = try jack("activate")
        set_process_callback = try jack("set_process_callback")
        set_xrun_callback = try jack("set_xrun_callback")
        set_buffer_size_callback = try jack("set_buffer_size_callback")
        on_info_shutdown = try jack("on_info_shutdown")
        set_thread_init_callback = try jack("set_thread_init_callback")
        client_thread_id = try jack("client_thread_id")
        set_error_function = try jack("set_error_function")
        set_info_function = try jack("set_info_function")
        port_register = try jack("port_register")
        port_name = try jack("port_name")
        port_by_name = try jack("port_by_name")
        port_flags = try jack("port_flags")
        get_ports = try jack("get_ports")
        free = try jack("free")
        connect = try jack("connect")
        port_get_latency_range = try jack("port_get_latency_range")
        port_get_buffer = try jack("port_get_buffer")
        last_frame_time = try jack("last_frame_time")
    }

    private static let loaded = loadOnce()

    /// The real libjack, loaded on first use (once per process; thread-safe). Throws the
    /// error of `load(fileName:)` when libjack is not installed. Any thread, not real-time.
    public static var system: JACKFunctions {
        get throws(TuttiError) { try loaded.get() }
    }

    /// `jack_client_open(name, options, status)`, or with `JackServerName` and `serverName`
    /// when one is given: the client, or nil with `status` saying why. Not on a JACK thread.
    public func openClient(
        _ name: String, options: UInt32, status: UnsafeMutablePointer<jack_status_t>, serverName: String?
    ) -> Client? {
        if let serverName {
            return tutti_jack_client_open_server(client_open, name, options, status, serverName)
        }
        return tutti_jack_client_open(client_open, name, options, status)
    }

    /// Drops libjack's own stderr lines ("Cannot connect to server socket …"): Tutti reports
    /// its own errors. Process-wide. Not on a JACK thread.
    public func silenceMessages() {
        set_error_function(dropMessage)
        set_info_function(dropMessage)
    }
}

private let dropMessage: JACKFunctions.MessageFunction = { _ in }
