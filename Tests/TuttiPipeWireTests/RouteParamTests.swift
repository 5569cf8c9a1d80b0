import CPipeWire
import Testing

/// The Route params of a device as the watcher reads them (`tpw_route_parse`), from pods built
/// the way PipeWire's ALSA card device writes them (`tpw_test_route_pod`, spa_pod_builder), and
/// malformed ones: a wrong type, a short info struct, a pod cut short or with bytes changed is
/// read as far as it is well formed, never past its size. No sound card is needed (the test
/// daemon's null sinks have no device).
@Suite struct RouteParamTests {
    /// A pod built by the shim: `variant` as `tpw_test_route_pod` says.
    static func pod(
        _ variant: Int32 = 0, portType: String? = "headphones", direction: UInt32 = 1, device: Int32 = 6, available: UInt32 = 2
    ) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let size = buffer.withUnsafeMutableBytes { b in
            tpw_test_route_pod(b.baseAddress, b.count, variant, portType, direction, device, available)
        }
        #expect(size > 0 && size <= buffer.count)
        return Array(buffer.prefix(size))
    }

    /// `bytes` parsed: the route, or nil when `tpw_route_parse` refuses it.
    static func parse(_ bytes: [UInt8], size: Int? = nil) -> tpw_route? {
        var route = tpw_route()
        let rc = bytes.withUnsafeBytes { b in tpw_route_parse(b.baseAddress, size ?? b.count, &route) }
        return rc == 0 ? route : nil
    }

    static func portType(_ route: tpw_route) -> String {
        withUnsafeBytes(of: route.port_type) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func name(_ route: tpw_route) -> String {
        withUnsafeBytes(of: route.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// A well-formed output route: every field the watcher uses.
    @Test(arguments: [("headphones", UInt32(2)), ("speaker", 0), ("hdmi", 1), ("line", 2), ("usb", 0)] as [(String, UInt32)])
    func aRouteIsRead(portType: String, available: UInt32) throws {
        let route = try #require(Self.parse(Self.pod(portType: portType, device: 6, available: available)))
        #expect(Self.portType(route) == portType)
        #expect(route.available == available)
        #expect(route.direction == 1 && route.device == 6 && route.index == 3)
        #expect(route.device_count == 1 && route.devices.0 == 6)
        #expect(Self.name(route) == "analog-output-test")
    }

    @Test func anInputRouteSaysSo() throws {
        let route = try #require(Self.parse(Self.pod(portType: "mic", direction: 0, device: 2)))
        #expect(route.direction == 0 && Self.portType(route) == "mic" && route.device == 2)
    }

    /// Malformed fields are left as none; the rest is read.
    @Test func malformedFieldsAreNone() throws {
        // info's count says 5 pairs, 3 are there: the pairs that are there are read.
        let short = try #require(Self.parse(Self.pod(1)))
        #expect(Self.portType(short) == "headphones")
        // port.type's value is an Int: no port type (the pair after it is not misread as one).
        let int = try #require(Self.parse(Self.pod(2)))
        #expect(Self.portType(int) == "" && int.device == 6)
        // device is a String: none; devices still says 6.
        let device = try #require(Self.parse(Self.pod(3)))
        #expect(device.device == -1 && device.device_count == 1 && device.devices.0 == 6 && Self.portType(device) == "headphones")
        // No info at all, or info not a Struct: no port type.
        #expect(Self.parse(Self.pod(6)).map(Self.portType) == "")
        #expect(Self.parse(Self.pod(7)).map(Self.portType) == "")
        // devices an array of Long: none.
        let long = try #require(Self.parse(Self.pod(8)))
        #expect(long.device_count == 0 && long.device == 6)
        // No device, only devices.
        let devices = try #require(Self.parse(Self.pod(9)))
        #expect(devices.device == -1 && devices.device_count == 1 && devices.devices.0 == 6)
    }

    /// Not a Route object (a Struct, a Profile object), nothing, or a size too small: refused.
    @Test func notARouteIsRefused() {
        #expect(Self.parse(Self.pod(4)) == nil)
        #expect(Self.parse(Self.pod(5)) == nil)
        #expect(Self.parse([]) == nil)
        #expect(Self.parse([0, 0, 0, 0, 0, 0, 0, 0]) == nil)
        let good = Self.pod()
        #expect(Self.parse(good, size: good.count - 1) == nil, "a pod longer than its buffer was read")
        #expect(Self.parse(good, size: 7) == nil)
        var route = tpw_route()
        #expect(tpw_route_parse(nil, 64, &route) == -1)
    }

    /// Every prefix of a good pod with its own size claimed (a pod cut short), and every byte of it
    /// changed in turn to 0x00, 0x7f and 0xff: parsed or refused, never read past the buffer
    /// (the bytes are copied to an exact-size allocation each time, so an over-read would touch
    /// memory outside it: AddressSanitizer runs catch that; here it must at least not crash), and
    /// the strings that come out are NUL-terminated within their fields.
    @Test func damagedPodsNeverCrash() {
        let good = Self.pod(0)
        var parsed = 0
        func check(_ bytes: [UInt8]) {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
            defer { copy.deallocate() }
            copy.copyBytes(from: bytes)
            var route = tpw_route()
            if tpw_route_parse(copy.baseAddress, bytes.count, &route) == 0 {
                parsed += 1
                #expect(Self.portType(route).utf8.count < 32 && Self.name(route).utf8.count < 64)
            }
        }
        for n in stride(from: 0, to: good.count, by: 4) {
            var cut = Array(good.prefix(n))
            if n >= 8 {
                // The header's size says the whole pod: more than there is.
                cut.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(good.count - 8), toByteOffset: 0, as: UInt32.self) }
            }
            check(cut)
        }
        for i in good.indices {
            for value: UInt8 in [0x00, 0x7f, 0xff] {
                var bad = good
                bad[i] = value
                check(bad)
            }
        }
        #expect(parsed > good.count, "the damaged pods were all refused: \(parsed)")
    }
}
