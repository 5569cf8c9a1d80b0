import TuttiDSP

// The per-block mix on the render thread.
//
// One pass per source: each source mixes straight into its route's output (`routeTargets`;
// main alone unless the engine has more routes) with
// source gain × fade × (gate × bus gain × duck × volume of its class). The bus and master
// factors are worked out once per bus per chunk: a scalar when settled, a per-frame gain array
// while any of them ramps. Both paths compute the same product per frame, so the samples do
// not depend on where a block is split. A source that has been panned (stereo engines) also
// multiplies each channel by its pan gain: one gain per channel when settled, one per sample
// while anything ramps (same product, same kernels' arithmetic); a source never panned takes
// none of this and mixes exactly as before.
extension Renderer {
    @inlinable @_noLocks
    func renderChunk(frameCount n: Int) {
        for r in 0..<outputBusCount { routeTargets[r].update(repeating: 0, count: n &* channelCount) }
        let systemRamping = volume.isRamping
        if systemRamping { for f in 0..<n { systemVolumeGains[f] = volume.next() } }
        let ringerRamping = ringerVolume.isRamping
        if ringerRamping { for f in 0..<n { ringerVolumeGains[f] = ringerVolume.next() } }
        for b in 0..<busHighWater where busOccupied[b] {
            computeBusGain(b, frameCount: n, volumeRamping: buses[b].isRinger ? ringerRamping : systemRamping)
            // A bus factor that moves: no settled plan holds while it does (nor is one made).
            if busRamping[b] { planEpoch &+= 1 }
            if let chain = busEffects[b] { chain.pointee.buffer.update(repeating: 0, count: n &* channelCount) }
        }
        if let masterBuffers {
            // Each route's stage uses the chunk's first `n` frames of its `maxChunk` span.
            for r in 0..<outputBusCount { (masterBuffers + r &* routeStride).update(repeating: 0, count: n &* channelCount) }
        }
        let epoch = planEpoch
        if settledEpoch == epoch {
            mixSettledList(frameCount: n, epoch: epoch)
        } else {
            // Every occupied source settled at the end (and no plan invalidated meanwhile):
            // the next chunks walk the dense list instead.
            var allSettled = true
            for i in 0..<sourceHighWater where sourceOccupied[i] {
                // A settled source (its plan holds) that does not reach its wrap in this chunk:
                // the mix and the position, nothing else can happen to it.
                if plans[i].epoch == epoch {
                    let position = sources[i].position
                    let before = plans[i].end &- position
                    let data = plans[i].data.unsafelyUnwrapped
                    let output = routeTargets[plans[i].route]
                    if n < before {
                        mixSettled(plans[i], from: data + position &* channelCount, into: output, frameCount: n)
                        sources[i].position = position &+ n
                        continue
                    }
                    // An endless loop wrapping in this chunk (once): up to its end, then from its
                    // start, as the slow path splits it. The position jumps: published again.
                    let after = n &- before
                    if plans[i].wraps, after < plans[i].end &- plans[i].loopStart {
                        if before > 0 { mixSettled(plans[i], from: data + position &* channelCount, into: output, frameCount: before) }
                        let start = plans[i].loopStart
                        if after > 0 {
                            mixSettled(
                                plans[i], from: data + start &* channelCount, into: output + before &* channelCount, frameCount: after)
                        }
                        sources[i].position = start &+ after
                        plans[i].since = framePosition
                        continue
                    }
                    plans[i].epoch = 0
                }
                renderSlot(i, frameCount: n, epoch: epoch)
                if plans[i].epoch != epoch { allSettled = false }
            }
            if allSettled, epoch == planEpoch { makeSettledList(epoch: epoch) }
        }
        // `||`'s right side is an autoclosure: a plain Bool there captures no reference.
        let busChains = anyBusEffects
        if masterBuffers != nil || busChains { finishEffects(frameCount: n, systemRamping: systemRamping) }
        // Per-bus mixes join main (never with a limiter or master stage: see `renderSpan`).
        if busMixActive, busMixJoins {
            let base = busMixBase
            for b in 0..<busMixSeen where busMixGiven[b] { Kernels.add(routeTargets[0], routeTargets[base &+ b], count: n &* channelCount) }
        }
        // The limiter is the last stage: what it outputs is what the caller gets.
        if let limiters {
            for r in 0..<outputBusCount { limiters[r].process(routeTargets[r], frameCount: n) }
        }
        if sidechainCount > 0 { finishSidechainChunk(frameCount: n) }
        if let p = probe { recordProbe(p, output: routeTargets[0], frameCount: n) }
        for b in 0..<busHighWater where busOccupied[b] {
            if buses[b].closing, !buses[b].gate.isRamping { finishBusRemoval(b, at: framePosition &+ Int64(n)) }
        }
    }

    /// Source slot `i`'s chunk when no settled plan holds for it: its key bus, effects or
    /// plain path, an input's frame count, a removal that waited for its fade.
    @inlinable @inline(__always) @_noLocks
    func renderSlot(_ i: Int, frameCount n: Int, epoch: Int) {
        // No `||` (its autoclosure would capture self: reference counting).
        var sounding = sources[i].running
        if sources[i].tailPosition >= 0 { sounding = true }
        let keySlot = sources[i].bus.slot
        if sounding, keySlot >= 0, keySlot < maxBuses, busOccupied[keySlot], buses[keySlot].keyUsers > 0 {
            renderKeySource(&sources[i], frameCount: n)
        } else if sounding {
            if masterBuffers == nil, !anyBusEffects {
                let settled = renderSource(&sources[i], into: routeTargets[mixIndex(sources[i])], frameCount: n)
                if settled, epoch == planEpoch, sources[i].tailPosition < 0 { makePlan(i) }
            } else {
                renderSourceThroughEffects(&sources[i], frameCount: n)
            }
        }
        // An input takes one frame per rendered frame whether it plays or not.
        if sources[i].isInput, case .input(var c) = sources[i].content {
            c.finishChunk(frameCount: n)
            sources[i].content = .input(c)
        }
        // A removal waited for its fade-out (or the end of the content).
        if !sources[i].running, case .remove = sources[i].pending { finishRemove(i, at: framePosition &+ Int64(n)) }
    }

    /// Every occupied slot's plan holds (made or kept in the chunk just mixed): the dense
    /// list of them, in slot order, with their positions after that chunk.
    @inlinable @_noLocks
    func makeSettledList(epoch: Int) {
        var count = 0
        var since = Int64.min
        let nodes = UnsafeMutableRawPointer(sources)
        let stride = MemoryLayout<SourceNode>.stride
        for i in 0..<sourceHighWater where sourceOccupied[i] {
            // Field by field in place (no initializer call on the render path).
            let e = settledList + count
            e.pointee.slot = i
            e.pointee.position = sources[i].position
            e.pointee.node_position = (nodes + (i &* stride &+ nodePositionOffset)).assumingMemoryBound(to: Int.self)
            e.pointee.end = plans[i].end
            e.pointee.data = plans[i].data
            e.pointee.route = plans[i].route
            e.pointee.gain_left = plans[i].gainLeft
            e.pointee.gain_right = plans[i].gainRight
            e.pointee.kind = plans[i].kind
            e.pointee.wraps = plans[i].wraps ? 1 : 0
            e.pointee.loop_start = plans[i].loopStart
            e.pointee.since = plans[i].since
            since = Swift.max(since, plans[i].since)
            count &+= 1
        }
        settledCount = count
        settledSince = since
        settledEpoch = epoch
    }

    /// The chunk while the dense settled list holds: the active variant's batch kernel
    /// (`Kernels.mixSettled`) mixes the entries in C, in order, one call for all of them — an
    /// endless loop reaching its end wraps there as the slot loop wraps it. A source reaching
    /// its end otherwise takes its slow path in its turn (the list is dropped: the slots are
    /// walked again from the next chunk) and the kernel goes on from the next entry; the
    /// sources mix in slot order either way.
    @inlinable @_noLocks
    func mixSettledList(frameCount n: Int, epoch: Int) {
        let count = settledCount
        let list = settledList
        var wrappedAt = Int64.min
        var k = 0
        while true {
            k = Kernels.mixSettled(
                list, from: k, count: count, targets: routeTargets, frameCount: n, channelCount: channelCount, frame: framePosition,
                wrappedAt: &wrappedAt)
            if k >= count { break }
            let i = list[k].slot
            plans[i].epoch = 0
            settledEpoch = 0
            renderSlot(i, frameCount: n, epoch: epoch)
            k &+= 1
        }
        // A wrap moved a position: published again (`publish` looks at the entries whose
        // `since` is not before the call).
        if wrappedAt != Int64.min { settledSince = wrappedAt }
        if settledEpoch == 0 {
            // The list is dropped but the other plans may hold: their `since` as the entries
            // have it (moved by a wrap), for the slot loop's publish.
            for j in 0..<count { plans[list[j].slot].since = list[j].since }
        }
    }

    @inlinable @inline(__always) @_noLocks
    func computeBusGain(_ b: Int, frameCount n: Int, volumeRamping: Bool) {
        let isRinger = buses[b].isRinger
        let volumeGains = isRinger ? ringerVolumeGains : systemVolumeGains
        var volumeValue = isRinger ? ringerVolume.value : volume.value
        var volumeRamping = volumeRamping
        // With a master stage the system volume comes after it (`finishEffects`).
        if masterBuffers != nil, !isRinger {
            volumeValue = 1
            volumeRamping = false
        }
        if !volumeRamping, !buses[b].gate.isRamping, !buses[b].gain.isRamping, !buses[b].duck.isMoving {
            busRamping[b] = false
            busScalar[b] = buses[b].gate.value * buses[b].gain.value * buses[b].duck.gain * volumeValue
            return
        }
        busRamping[b] = true
        let gains = busGains + b &* busGainStride
        for f in 0..<n {
            let v = volumeRamping ? volumeGains[f] : volumeValue
            gains[f] = buses[b].gate.next() * buses[b].gain.next() * buses[b].duck.next() * v
        }
    }

    /// Source `i` took `renderSource`'s fast path into its route (no key bus, no effects, no
    /// seek tail): its settled plan, the gains worked out as that path works them out.
    @inlinable @_noLocks
    func makePlan(_ i: Int) {
        let b = sources[i].bus.slot
        // Field by field in place (no initializer call on the render path).
        let p = plans + i
        p.pointee.epoch = planEpoch
        p.pointee.data = sources[i].bufferData
        p.pointee.end = sources[i].wrapFrame(count: sources[i].bufferFrames)
        p.pointee.since = framePosition
        p.pointee.route = mixIndex(sources[i])
        // An endless loop whose next wrap is at its loop end (not a position past it).
        p.pointee.wraps = false
        if sources[i].loop, sources[i].loopsLeft < 0, p.pointee.end == sources[i].loopEnd, sources[i].loopEnd > sources[i].loopStart {
            p.pointee.wraps = true
            p.pointee.loopStart = sources[i].loopStart
        }
        let g = sources[i].gain.value * sources[i].fade.value * busScalar[b]
        if sources[i].isPanned {
            p.pointee.kind = 3
            p.pointee.gainLeft = g * sources[i].panLeft.value
            p.pointee.gainRight = g * sources[i].panRight.value
        } else if g == 1 {
            p.pointee.kind = 1
        } else if g != 0 {
            p.pointee.kind = 2
            p.pointee.gainLeft = g
        } else {
            p.pointee.kind = 0
        }
    }

    /// A settled source's chunk from `src` into its route, as `renderSource`'s fast path mixes it.
    @inlinable @inline(__always) @_noLocks
    func mixSettled(_ p: SettledPlan, from src: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frameCount n: Int) {
        switch p.kind {
        case 1: Kernels.add(output, src, count: n &* channelCount)
        case 2: Kernels.mixAdd(output, src, count: n &* channelCount, gain: p.gainLeft)
        case 3: Kernels.mixAddPair(output, src, frameCount: n, gainLeft: p.gainLeft, gainRight: p.gainRight)
        default: break
        }
    }

    /// A source of a key bus: rendered alone into `keyScratch` (where it would mix otherwise:
    /// its route, its bus's chain, or the master stage), its sum of squares added to the
    /// bus's `keyEnergy`, then added to that target.
    @inlinable @_noLocks
    func renderKeySource(_ node: inout SourceNode, frameCount n: Int) {
        let b = node.bus.slot
        let count = n &* channelCount
        var target = routeTargets[mixIndex(node)]
        var gainSlot = -1
        // No `||` (its autoclosure would capture self: reference counting).
        var staged = anyBusEffects
        if masterBuffers != nil { staged = true }
        if staged {
            if node.route == 0, let chain = busEffects[b] {
                target = chain.pointee.buffer
                gainSlot = maxBuses
            } else if let masterBuffers, !buses[b].isRinger {
                target = masterBuffers + node.route &* routeStride
            }
        }
        keyScratch.update(repeating: 0, count: count)
        renderSource(&node, into: keyScratch, frameCount: n, gainSlot: gainSlot)
        var sum: Float = 0
        for j in 0..<count { sum += keyScratch[j] * keyScratch[j] }
        buses[b].keyEnergy += sum
        Kernels.add(target, keyScratch, count: count)
    }

    /// After a chunk while sidechains are armed: at the end of a 10 ms window (chunks end on
    /// window bounds then), each key bus's mean square over it, then each sidechain's
    /// decision — above the threshold: duck (began); at or below for the hold: release (ended).
    @inlinable @_noLocks
    func finishSidechainChunk(frameCount n: Int) {
        let end = framePosition &+ Int64(n)
        let w = sidechainWindowFrames
        guard end % Int64(w) == 0 else { return }
        let samples = Float(w &* channelCount)
        for b in 0..<busHighWater where busOccupied[b] {
            guard buses[b].keyUsers > 0 else { continue }
            buses[b].keyMeanSquare = buses[b].keyEnergy / samples
            buses[b].keyEnergy = 0
        }
        for b in 0..<busHighWater where busOccupied[b] {
            guard let sc = buses[b].sidechain else { continue }
            var level: Float = 0
            if let k = busIndex(sc.key) { level = buses[k].keyMeanSquare }
            if level > sc.thresholdMeanSquare {
                buses[b].sidechainBelowFrames = 0
                if !buses[b].sidechainDucking {
                    buses[b].sidechainDucking = true
                    buses[b].duck.move(to: sc.targetDB, dBPerFrame: sc.attackDBPerFrame)
                    planEpoch &+= 1
                    report(.sidechainDuck(buses[b].id, began: true), at: end)
                }
            } else if buses[b].sidechainDucking {
                buses[b].sidechainBelowFrames &+= w
                if buses[b].sidechainBelowFrames >= Int(sc.holdFrames) {
                    buses[b].sidechainDucking = false
                    buses[b].sidechainBelowFrames = 0
                    buses[b].duck.move(to: 0, dBPerFrame: sc.releaseDBPerFrame)
                    planEpoch &+= 1
                    report(.sidechainDuck(buses[b].id, began: false), at: end)
                }
            }
        }
    }

    /// Where `node` mixes in `routeTargets`: its bus's entry for main (main itself unless the
    /// span splits main by bus), its route's otherwise.
    @inlinable @inline(__always) @_noLocks
    func mixIndex(_ node: SourceNode) -> Int {
        let b = node.bus.slot
        if node.route == 0, b >= 0, b < busMixSeen { return busMixBase &+ b }
        return node.route
    }

    /// Some bus has an effect chain.
    @inlinable var anyBusEffects: Bool {
        @_noLocks get { busEffectCount > 0 }
    }

    /// A source when effects exist: into its bus's chain buffer (main route, bus gain of 1:
    /// the bus factor comes after the chain), else into the master stage's buffer of its
    /// route (non-ringer buses), else into its route as without effects.
    @inlinable @_noLocks
    func renderSourceThroughEffects(_ node: inout SourceNode, frameCount n: Int) {
        let b = node.bus.slot
        guard b >= 0, b < maxBuses, busOccupied[b] else { return }
        let route = node.route
        if route == 0, let chain = busEffects[b] {
            renderSource(&node, into: chain.pointee.buffer, frameCount: n, gainSlot: maxBuses)
        } else if let masterBuffers, !buses[b].isRinger {
            renderSource(&node, into: masterBuffers + route &* routeStride, frameCount: n)
        } else {
            renderSource(&node, into: routeTargets[mixIndex(node)], frameCount: n)
        }
    }

    /// After the sources: each bus chain runs (then the bus's host effect, if any) and joins
    /// main with its bus factor (into the master stage's buffer when there is one); the master
    /// chain (then the master's host effect, if any) runs on main's; every
    /// route's master-stage mix joins its output with the system volume.
    @inlinable @_noLocks
    func finishEffects(frameCount n: Int, systemRamping: Bool) {
        let ch = channelCount
        if anyBusEffects {
            for b in 0..<busHighWater where busOccupied[b] {
                guard let chain = busEffects[b] else { continue }
                chain.pointee.process(frameCount: n)
                if let host = busHostEffects[b] { host.pointee.process(chain.pointee.buffer, frameCount: n, channelCount: ch) }
                var dst = routeTargets[busMixBase &+ b]
                if let masterBuffers, !buses[b].isRinger { dst = masterBuffers }
                if busRamping[b] {
                    Kernels.mixAddGains(dst, chain.pointee.buffer, gains: busGains + b &* busGainStride, frameCount: n, channelCount: ch)
                } else if busScalar[b] != 0 {
                    Kernels.mixAdd(dst, chain.pointee.buffer, count: n &* ch, gain: busScalar[b])
                }
            }
        }
        guard let masterBuffers, let masterEffects else { return }
        for i in 0..<masterEffects.pointee.count { masterEffects.pointee.units[i].process(masterBuffers, frameCount: n) }
        if let host = masterHostEffect { host.pointee.process(masterBuffers, frameCount: n, channelCount: ch) }
        for r in 0..<outputBusCount {
            let src = masterBuffers + r &* routeStride
            if systemRamping {
                Kernels.mixAddGains(routeTargets[r], src, gains: systemVolumeGains, frameCount: n, channelCount: ch)
            } else if volume.value != 0 {
                Kernels.mixAdd(routeTargets[r], src, count: n &* ch, gain: volume.value)
            }
        }
    }

    /// Returns true when it took the fast path (a buffer source at settled gains: see
    /// `SettledPlan`).
    @inlinable @_noLocks @discardableResult
    func renderSource(_ node: inout SourceNode, into output: UnsafeMutablePointer<Float>, frameCount n: Int, gainSlot: Int = -1) -> Bool {
        let ch = channelCount
        let busSlot = node.bus.slot
        guard busSlot >= 0, busSlot < maxBuses, busOccupied[busSlot] else { return false }
        // The gains of the bus, or of the unity slot past the buses (mixing into a chain).
        let b = gainSlot >= 0 ? gainSlot : busSlot
        // A seek's crossfade: the old position first, fading out (it may outlive the new one's end).
        if node.tailPosition >= 0 { mixTail(&node, into: output, bus: b, frameCount: n) }
        guard node.running else { return false }
        // Fast path, most sources most of the time: a buffer that plays the whole chunk at a
        // settled gain, with nothing waiting for a fade. Same kernels, same samples.
        if let data = node.bufferData, node.position &+ n < node.wrapFrame(count: node.bufferFrames), !busRamping[b], !node.gain.isRamping,
            !node.fade.isRamping, !node.isHalting, !node.panLeft.isRamping, !node.panRight.isRamping, !node.isVarispeed
        {
            let g = node.gain.value * node.fade.value * busScalar[b]
            let src = data + node.position &* ch
            if node.isPanned {
                Kernels.mixAddPair(output, src, frameCount: n, gainLeft: g * node.panLeft.value, gainRight: g * node.panRight.value)
            } else if g == 1 {
                Kernels.add(output, src, count: n &* ch)
            } else if g != 0 {
                Kernels.mixAdd(output, src, count: n &* ch, gain: g)
            }
            node.position &+= n
            return true
        }
        var offset = 0
        while offset < n, node.running {
            var seg = n &- offset
            let halting = node.isHalting
            if halting { seg = min(seg, node.fade.framesRemaining) }
            if seg > 0 {
                switch node.content {
                case .buffer(let data, let count) where node.isVarispeed:
                    // At a rate: interpolated into scratch, wrapping inside; ends when it cannot wrap.
                    let made = renderVarispeed(&node, data: data, count: count, into: scratch, frameCount: seg)
                    if made > 0 { mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: made) }
                    if node.position >= node.wrapFrame(count: count) {
                        seg = made
                        endOfContent(&node, at: framePosition &+ Int64(offset &+ made))
                    }
                case .buffer(let data, let count):
                    // Up to the loop's end (or the buffer's), then back to the loop's start.
                    let end = node.wrapFrame(count: count)
                    seg = min(seg, end &- node.position)
                    if seg > 0 {
                        mixSegment(&node, from: data + node.position &* ch, into: output, bus: b, offset: offset, frameCount: seg)
                        node.position &+= seg
                    }
                    if node.position >= end, !node.wrap(count: count) {
                        endOfContent(&node, at: framePosition &+ Int64(offset &+ seg))
                    }
                case .tone(var osc):
                    osc.render(into: scratch, frameCount: seg, channelCount: ch)
                    node.content = .tone(osc)
                    mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: seg)
                    node.position &+= seg
                case .stream(var s):
                    let made = s.render(into: scratch, frameCount: seg)
                    node.content = .stream(s)
                    if made > 0 {
                        ChannelMap.mapInPlace(scratch, frameCount: made, from: s.channelCount, to: ch)
                        mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: made)
                        node.position &+= made
                    }
                    if s.finished {
                        // Ended (`endStream`) and every frame written was heard.
                        seg = made
                        endOfContent(&node, at: framePosition &+ Int64(offset &+ made))
                    }
                case .input(var c):
                    c.capture(into: scratch, frameCount: seg, frame: framePosition &+ Int64(offset))
                    node.content = .input(c)
                    ChannelMap.mapInPlace(scratch, frameCount: seg, from: c.channelCount, to: ch)
                    mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: seg)
                    node.position &+= seg
                case .file(var f):
                    // Up to the loop's end (or the file's), then back to the loop's start, as
                    // a buffer: the worker wrote the region's start right after its end.
                    let end = node.wrapFrame(count: f.frameCount)
                    seg = min(seg, end &- node.position)
                    if seg > 0 {
                        let consumed = f.read(into: scratch, frameCount: seg)
                        node.content = .file(f)
                        mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: seg)
                        node.position &+= consumed
                    }
                    if node.position >= end, !node.wrap(count: f.frameCount) {
                        endOfContent(&node, at: framePosition &+ Int64(offset &+ seg))
                    }
                case .silence:
                    node.gain.skip(seg)
                    node.fade.skip(seg)
                    node.panLeft.skip(seg)
                    node.panRight.skip(seg)
                    node.position &+= seg
                }
            }
            offset &+= seg
            if node.running, halting, !node.fade.isRamping {
                finishFade(&node, at: framePosition &+ Int64(offset))
            }
        }
        return false
    }

    /// The old position of a buffer source during a seek's crossfade: mixed like the source
    /// (its gain, pan and bus gains, frame for frame as the new position gets them) under
    /// `tailFade` instead of `fade`, until that reaches 0 or the buffer ends (a loop wraps
    /// through the source's region, spending `tailLoopsLeft`).
    @inlinable @_noLocks
    func mixTail(_ node: inout SourceNode, into output: UnsafeMutablePointer<Float>, bus b: Int, frameCount n: Int) {
        guard let data = node.bufferData else {
            node.tailPosition = -1
            return
        }
        let ch = channelCount
        let count = node.bufferFrames
        // A copy: its gain and pan ramps run through this chunk as the source's own will.
        var tail = node
        tail.fade = node.tailFade
        tail.position = node.tailPosition
        tail.phase = node.tailPhase
        tail.loopsLeft = node.tailLoopsLeft
        var offset = 0
        if tail.isVarispeed, tail.fade.isRamping {
            // At a rate: the same reading as the source's, on the tail's own position.
            let seg = min(n, tail.fade.framesRemaining)
            let made = renderVarispeed(&tail, data: data, count: count, into: scratch, frameCount: seg)
            if made > 0 { mixSegment(&tail, from: scratch, into: output, bus: b, offset: 0, frameCount: made) }
            // Ended: past the buffer's end for good.
            if tail.position >= tail.wrapFrame(count: count) { tail.position = count }
            offset = n
        }
        while offset < n, tail.fade.isRamping {
            // The loop region as the source has it, on the tail's own count of wraps.
            let end = tail.wrapFrame(count: count)
            let seg = min(min(n &- offset, tail.fade.framesRemaining), end &- tail.position)
            if seg > 0 {
                mixSegment(&tail, from: data + tail.position &* ch, into: output, bus: b, offset: offset, frameCount: seg)
                tail.position &+= seg
                offset &+= seg
            }
            if tail.position >= end {
                guard tail.wrap(count: count) else { break }
            }
        }
        let position = tail.position
        if tail.fade.isRamping, position < count {
            node.tailPosition = position
            node.tailPhase = tail.phase
            node.tailFade = tail.fade
            node.tailLoopsLeft = tail.loopsLeft
        } else {
            node.tailPosition = -1
        }
    }

    /// A buffer played past its last frame (not looping, or its wraps spent): stopped, rewound
    /// (its loop count restored), reported. A
    /// removal waiting for a fade-out happens now.
    @inlinable @inline(__always) @_noLocks
    func endOfContent(_ node: inout SourceNode, at frame: Int64) {
        node.running = false
        node.position = 0
        node.phase = 0
        node.loopsLeft = node.loopCount
        node.pendingSeek = -1
        if case .remove = node.pending { return }
        node.pending = PendingHalt.none
        node.ended = true
        report(.sourceEnded(node.id), at: frame)
    }

    /// A buffer source at a rate (`SourceNode.isVarispeed`): up to `frameCount` frames into
    /// `dst` (interleaved, the engine's channels), each read at the fractional position
    /// `position` + `phase` with 4-point Hermite interpolation (`Hermite`), the position
    /// advancing by the rate (its glide stepping once per frame). Reaching the loop's end (or
    /// the buffer's) it wraps with the fraction kept (`SourceNode.wrapFractional`); the points
    /// past it are the loop's start when it will wrap there, silence past the content's end,
    /// and silence before frame 0. Returns the frames made: fewer than asked when the content
    /// ended, which leaves `position` at or past `wrapFrame(count:)` (also when it ended
    /// right after the last frame made).
    @inlinable @_noLocks
    func renderVarispeed(
        _ node: inout SourceNode, data: UnsafePointer<Float>, count: Int, into dst: UnsafeMutablePointer<Float>, frameCount n: Int
    ) -> Int {
        let ch = channelCount
        var made = 0
        while made < n {
            guard node.wrapFractional(count: count) else { return made }
            let i = node.position
            let t = Float(node.phase)
            let end = node.wrapFrame(count: count)
            let out = dst + made &* ch
            if i >= 1, i &+ 2 < end {
                let p = data + (i &- 1) &* ch
                for c in 0..<ch { out[c] = Hermite.interpolate(p[c], p[ch &+ c], p[2 &* ch &+ c], p[3 &* ch &+ c], t: t) }
            } else {
                let jm1 = varispeedIndex(node, i &- 1, end: end)
                let j0 = varispeedIndex(node, i, end: end)
                let j1 = varispeedIndex(node, i &+ 1, end: end)
                let j2 = varispeedIndex(node, i &+ 2, end: end)
                for c in 0..<ch {
                    let xm1: Float = jm1 >= 0 ? data[jm1 &* ch &+ c] : 0
                    let x0: Float = j0 >= 0 ? data[j0 &* ch &+ c] : 0
                    let x1: Float = j1 >= 0 ? data[j1 &* ch &+ c] : 0
                    let x2: Float = j2 >= 0 ? data[j2 &* ch &+ c] : 0
                    out[c] = Hermite.interpolate(xm1, x0, x1, x2, t: t)
                }
            }
            let advanced = node.phase + Double(node.rate.next())
            let whole = Int(advanced)
            node.position &+= whole
            node.phase = advanced - Double(whole)
            made &+= 1
        }
        _ = node.wrapFractional(count: count)
        return made
    }

    /// The frame an interpolation point `j` reads for a source whose playback wraps or ends
    /// at `end`: `j` itself inside the content, the loop's start onward past a wrap that will
    /// happen, -1 (silence) before frame 0 and past the content's end.
    @inlinable @inline(__always) @_noLocks
    func varispeedIndex(_ node: SourceNode, _ j: Int, end: Int) -> Int {
        if j < 0 { return -1 }
        if j < end { return j }
        guard node.loop, node.loopsLeft != 0, node.loopEnd > node.loopStart else { return -1 }
        return node.loopStart &+ (j &- end) % (node.loopEnd &- node.loopStart)
    }

    /// output[offset…] += (gain · fade) · busGain · src over `frameCount` frames (× each
    /// channel's pan gain once the source has been panned).
    @inlinable @inline(__always) @_noLocks
    func mixSegment(
        _ node: inout SourceNode, from src: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
        bus b: Int, offset: Int, frameCount: Int
    ) {
        let ch = channelCount
        let dst = output + offset &* ch
        if node.isPanned {
            mixPanned(&node, from: src, into: dst, bus: b, offset: offset, frameCount: frameCount)
            return
        }
        if !busRamping[b], !node.gain.isRamping, !node.fade.isRamping {
            let g = node.gain.value * node.fade.value * busScalar[b]
            if g == 1 {
                Kernels.add(dst, src, count: frameCount &* ch)
            } else if g != 0 {
                Kernels.mixAdd(dst, src, count: frameCount &* ch, gain: g)
            }
            return
        }
        let gains = frameGains
        if busRamping[b], !node.gain.isRamping, !node.fade.isRamping {
            // Only the bus ramps (a duck envelope): the source's settled gain times the bus's
            // per-frame gain — the same products as the loop below (a settled ramp's `next()`
            // is its `value`), in a loop with no dependence between frames (vectorized).
            let busGain = busGains + (b &* busGainStride &+ offset)
            let g = node.gain.value * node.fade.value
            for f in 0..<frameCount { gains[f] = g * busGain[f] }
        } else if busRamping[b] {
            let busGain = busGains + (b &* busGainStride &+ offset)
            for f in 0..<frameCount { gains[f] = node.gain.next() * node.fade.next() * busGain[f] }
        } else {
            let busGain = busScalar[b]
            for f in 0..<frameCount { gains[f] = node.gain.next() * node.fade.next() * busGain }
        }
        Kernels.mixAddGains(dst, src, gains: gains, frameCount: frameCount, channelCount: ch)
    }

    /// A panned source (stereo engine): the same frame gain as `mixSegment`, times each
    /// channel's pan gain — a gain per channel when everything is settled, a gain per sample
    /// while anything ramps.
    @inlinable @inline(__always) @_noLocks
    func mixPanned(
        _ node: inout SourceNode, from src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>,
        bus b: Int, offset: Int, frameCount: Int
    ) {
        if !busRamping[b], !node.gain.isRamping, !node.fade.isRamping, !node.panLeft.isRamping, !node.panRight.isRamping {
            let g = node.gain.value * node.fade.value * busScalar[b]
            Kernels.mixAddPair(dst, src, frameCount: frameCount, gainLeft: g * node.panLeft.value, gainRight: g * node.panRight.value)
            return
        }
        let gains = sampleGains
        if busRamping[b], !node.gain.isRamping, !node.fade.isRamping, !node.panLeft.isRamping, !node.panRight.isRamping {
            // Only the bus ramps: the loop below's products with the settled values (no
            // dependence between frames).
            let busGain = busGains + (b &* busGainStride &+ offset)
            let g0 = node.gain.value * node.fade.value
            let (left, right) = (node.panLeft.value, node.panRight.value)
            for f in 0..<frameCount {
                let g = g0 * busGain[f]
                gains[2 &* f] = g * left
                gains[2 &* f &+ 1] = g * right
            }
        } else if busRamping[b] {
            let busGain = busGains + (b &* busGainStride &+ offset)
            for f in 0..<frameCount {
                let g = node.gain.next() * node.fade.next() * busGain[f]
                gains[2 &* f] = g * node.panLeft.next()
                gains[2 &* f &+ 1] = g * node.panRight.next()
            }
        } else {
            let busGain = busScalar[b]
            for f in 0..<frameCount {
                let g = node.gain.next() * node.fade.next() * busGain
                gains[2 &* f] = g * node.panLeft.next()
                gains[2 &* f &+ 1] = g * node.panRight.next()
            }
        }
        Kernels.mixAddSampleGains(dst, src, gains: gains, count: frameCount &* 2)
    }
}
