import TuttiDSP

extension Renderer {
    /// Every audio buffer the render path reads or writes, by name, with its first byte: the
    /// route and master-stage chunks (each route's part), the bus gain rows, the gain and
    /// scratch blocks, the bus and master effect chains' buffers and delay lines, the
    /// limiters' delay lines, the command and event rings, and each installed source's
    /// samples (a buffer's data, a stream's, file's or input's ring, an input's tap ring).
    /// All come from `allocateAudio` and start on an `audioBufferAlignment` boundary.
    ///
    /// Tests and debugging only: reads render-side state, so call it on the render thread or
    /// while nothing renders (an offline engine between renders). Allocates.
    package func audioBufferAddresses() -> [(name: String, address: UnsafeRawPointer)] {
        var found: [(name: String, address: UnsafeRawPointer)] = []
        func add(_ name: String, _ pointer: UnsafePointer<Float>) { found.append((name, UnsafeRawPointer(pointer))) }
        func addChain(_ name: String, _ chain: UnsafeMutablePointer<EffectChain>) {
            add(name + ".buffer", chain.pointee.buffer)
            for i in 0..<chain.pointee.count { found.append(("\(name).unit[\(i)].line", chain.pointee.units[i].lineAddress)) }
        }
        for r in 0..<max(outputBusCount - 1, 1) { add("routeScratch[\(r)]", routeScratch + r * routeStride) }
        if let masterBuffers { for r in 0..<outputBusCount { add("masterBuffers[\(r)]", masterBuffers + r * routeStride) } }
        for b in 0..<maxBuses { add("busGains[\(b)]", busGains + b * busGainStride) }
        add("systemVolumeGains", systemVolumeGains)
        add("ringerVolumeGains", ringerVolumeGains)
        add("frameGains", frameGains)
        add("sampleGains", sampleGains)
        add("scratch", scratch)
        for b in 0..<maxBuses { if let chain = busEffects[b] { addChain("busEffects[\(b)]", chain) } }
        if let masterEffects { addChain("masterEffects", masterEffects) }
        if let limiters { for r in 0..<outputBusCount { found.append(("limiters[\(r)].delay", limiters[r].delayLineAddress)) } }
        found.append(("commands", UnsafeRawPointer(commands.elements)))
        found.append(("events", UnsafeRawPointer(events.elements)))
        for i in 0..<sourceHighWater where sourceOccupied[i] {
            let name = "sources[\(i)]"
            switch sources[i].content {
            case .buffer(let data, _): add(name + ".buffer", data)
            case .stream(let node): add(name + ".stream.ring", node.input.elements)
            case .file(let node): add(name + ".file.ring", node.ring.elements)
            case .input(let node):
                add(name + ".input.ring", node.ring.elements)
                if let tap = node.tap { add(name + ".input.tap", tap.elements) }
            case .tone, .silence: break
            }
        }
        return found
    }
}
