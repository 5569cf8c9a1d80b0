import Synchronization
import TuttiDSP

// Applying commands and the transport (play, pause, stop, seek, remove) on the render thread.
extension Renderer {
    /// Move everything from the command ring into the pending heap. A command for now, or for
    /// a frame already rendered, is stamped with the current frame: it applies before this
    /// block, after the commands already due and made before it.
    @inlinable @inline(__always) @_noLocks
    func takeCommands() {
        var c = RenderCommand(frame: 0, sequence: 0, action: .command(.setMasterVolume(gain: 1, rampFrames: 0)))
        while commands.pop(into: &c) {
            if c.frame < framePosition { c.frame = framePosition }
            if !pending.push(c) { board.eventsDropped.pointee.wrappingAdd(1, ordering: .relaxed) }
        }
    }

    @inlinable @inline(__always) @_noLocks
    func applyDueCommands() {
        var applied: Int64 = 0
        while !pending.isEmpty, pending.nextFrame <= framePosition {
            let c = pending.pop()
            apply(c.action)
            applied &+= 1
        }
        if applied > 0 { board.commandsApplied.pointee.wrappingAdd(applied, ordering: .releasing) }
    }

    @inlinable @inline(__always) @_noLocks
    func report(_ kind: RenderEvent.Kind, at frame: Int64) {
        if !events.push(RenderEvent(frame: frame, kind: kind)) { board.eventsDropped.pointee.wrappingAdd(1, ordering: .relaxed) }
    }

    /// The slot of a live source with exactly this id (generation included).
    @inlinable @inline(__always) @_noLocks
    func sourceIndex(_ id: SourceID) -> Int? {
        let i = id.slot
        guard i >= 0, i < maxSources, sourceOccupied[i], sources[i].id.rawValue == id.rawValue else { return nil }
        return i
    }

    @inlinable @inline(__always) @_noLocks
    func busIndex(_ id: BusID) -> Int? {
        let i = id.slot
        guard i >= 0, i < maxBuses, busOccupied[i], buses[i].id.rawValue == id.rawValue else { return nil }
        return i
    }

    @inlinable @_noLocks
    func apply(_ action: RenderCommand.Action) {
        // Whatever it changes, no settled plan is trusted past it.
        planEpoch &+= 1
        switch action {
        case .command(let command):
            apply(command)
        case .installSource(let node):
            let i = node.pointee.id.slot
            if i >= 0, i < maxSources, !sourceOccupied[i], busIndex(node.pointee.bus) != nil {
                sources[i] = node.pointee
                sourceOccupied[i] = true
                if i >= sourceHighWater { sourceHighWater = i &+ 1 }
                board.publish(slot: i, id: node.pointee.id.rawValue, state: .stopped, position: 0, underrunFrames: 0, frame: framePosition)
                board.resetUnderruns(slot: i)
            }
            report(.retiredSourceNode(node), at: framePosition)
        case .installBus(let node):
            let i = node.pointee.id.slot
            if i >= 0, i < maxBuses, !busOccupied[i] {
                buses[i] = node.pointee
                busOccupied[i] = true
                if i >= busHighWater { busHighWater = i &+ 1 }
            }
            report(.retiredBusNode(node), at: framePosition)
        case .removeSource(let id):
            guard let i = sourceIndex(id) else { return }
            if sources[i].running, sources[i].fadeOutFrames > 0 {
                sources[i].pending = PendingHalt.remove
                sources[i].fade.ramp(to: 0, frameCount: sources[i].fadeOutFrames)
                shortenTail(&sources[i], toFrames: sources[i].fadeOutFrames)
            } else {
                finishRemove(i, at: framePosition)
            }
        case .removeBus(let id):
            guard let b = busIndex(id), !buses[b].closing else { return }
            buses[b].closing = true
            // Fade the session out if anything of it sounds; `renderChunk` finishes the removal.
            var sounding = false
            for i in 0..<sourceHighWater where sourceOccupied[i] {
                if sources[i].bus.rawValue == id.rawValue, sources[i].running { sounding = true }
            }
            buses[b].gate.ramp(to: 0, frameCount: sounding ? transportFadeFrames : 0)
            if !buses[b].gate.isRamping { finishBusRemoval(b, at: framePosition) }
        case .attachProbe(let p):
            probe = p
        case .setBusEffects(let id, let chain):
            guard let b = busIndex(id) else {
                if let chain { report(.retiredEffects(chain), at: framePosition) }
                return
            }
            if let old = busEffects[b] {
                report(.retiredEffects(old), at: framePosition)
                busEffectCount &-= 1
            }
            busEffects[b] = chain
            if chain != nil { busEffectCount &+= 1 }
        case .glideBusBiquad(let id, let index, let frames, let target):
            if let b = busIndex(id), let chain = busEffects[b], index >= 0, Int(index) < chain.pointee.count {
                chain.pointee.units[Int(index)].glide(to: target.pointee, frames: Int(frames))
            }
            report(.retiredCoefficients(target), at: framePosition)
        case .setBusHostEffect(let id, let slot):
            guard let b = busIndex(id) else {
                if let slot { report(.retiredHostEffect(slot), at: framePosition) }
                return
            }
            if let old = busHostEffects[b] { report(.retiredHostEffect(old), at: framePosition) }
            busHostEffects[b] = slot
        case .setMasterHostEffect(let slot):
            if let old = masterHostEffect { report(.retiredHostEffect(old), at: framePosition) }
            masterHostEffect = slot
        }
    }

    @inlinable @inline(__always) @_noLocks
    func apply(_ command: EngineCommand) {
        switch command {
        case .play(let id):
            guard let i = sourceIndex(id) else { return }
            let becomesVoice = sources[i].becomesVoiceOnPlay
            if becomesVoice, !admitVoice(i) { return }
            play(&sources[i])
            if becomesVoice {
                voiceCounter &+= 1
                sources[i].voiceSerial = voiceCounter
            }
        case .pause(let id):
            guard let i = sourceIndex(id) else { return }
            halt(&sources[i], then: .pause)
        case .stop(let id):
            guard let i = sourceIndex(id) else { return }
            halt(&sources[i], then: .stop)
        case .seek(let id, let position):
            guard let i = sourceIndex(id) else { return }
            seek(&sources[i], to: position)
        case .crossfade(let id, let from, let frames):
            guard let i = sourceIndex(id), let j = sourceIndex(from), i != j else { return }
            crossfade(into: i, from: j, frameCount: Int(frames))
        case .setSourceGain(let id, let gain, let frames):
            guard let i = sourceIndex(id) else { return }
            sources[i].gain.ramp(to: gain, frameCount: Int(frames))
        case .setSourceRate(let id, let rate, let frames):
            // Only a buffer source reads at a rate (the control side refuses the others).
            guard let i = sourceIndex(id), sources[i].bufferData != nil else { return }
            sources[i].rate.ramp(to: min(max(rate, 0.25), 4), frameCount: Int(frames))
        case .setSourcePan(let id, let pan, let frames):
            // A mono engine has nothing to pan.
            guard let i = sourceIndex(id), channelCount == 2 else { return }
            let g = PanLaw.gains(pan: pan, stereo: sources[i].stereoContent)
            sources[i].panLeft.ramp(to: g.left, frameCount: Int(frames))
            sources[i].panRight.ramp(to: g.right, frameCount: Int(frames))
        case .setFades(let id, let fadeIn, let fadeOut):
            guard let i = sourceIndex(id) else { return }
            sources[i].fadeInFrames = Int(fadeIn)
            sources[i].fadeOutFrames = max(Int(fadeOut), 0)
        case .setLoop(let id, let loop):
            guard let i = sourceIndex(id) else { return }
            let wasWhole = isWholeFileLoop(&sources[i])
            sources[i].loop = loop
            refillIfLoopChanged(&sources[i], wasWhole: wasWhole)
        case .setLoopRegion(let id, let start, let end, let count):
            guard let i = sourceIndex(id) else { return }
            setLoopRegion(&sources[i], start: start, end: end, count: count)
        case .setPriority(let id, let priority):
            guard let i = sourceIndex(id) else { return }
            sources[i].priority = priority
        case .setOutputBus(let id, let route):
            guard let i = sourceIndex(id), route >= 0, Int(route) < outputBusCount else { return }
            sources[i].route = Int(route)
        case .setBusMaxVoices(let id, let limit):
            guard let b = busIndex(id) else { return }
            buses[b].maxVoices = Int(max(limit, 0))
        case .setMaxVoices(let limit):
            maxVoices = Int(max(limit, 0))
        case .setBusGate(let id, let gain, let frames):
            guard let b = busIndex(id) else { return }
            buses[b].gate.ramp(to: gain, frameCount: Int(frames))
        case .setBusGain(let id, let gain, let frames):
            guard let b = busIndex(id) else { return }
            buses[b].gain.ramp(to: gain, frameCount: Int(frames))
        case .setBusDuck(let id, let target, let rate):
            guard let b = busIndex(id) else { return }
            buses[b].duck.move(to: target, dBPerFrame: rate)
        case .setBusSidechain(let id, let sc):
            guard let b = busIndex(id) else { return }
            disarmSidechain(b)
            buses[b].sidechain = sc
            sidechainCount &+= 1
            if let k = busIndex(sc.key) { buses[k].keyUsers &+= 1 }
            // A duck in force stays so, at the new level.
            if buses[b].sidechainDucking { buses[b].duck.move(to: sc.targetDB, dBPerFrame: sc.attackDBPerFrame) }
        case .clearBusSidechain(let id):
            guard let b = busIndex(id), let sc = buses[b].sidechain else { return }
            disarmSidechain(b)
            if buses[b].sidechainDucking {
                buses[b].sidechainDucking = false
                buses[b].duck.move(to: 0, dBPerFrame: sc.releaseDBPerFrame)
                report(.sidechainDuck(id, began: false), at: framePosition)
            }
        case .setMasterVolume(let gain, let frames):
            volume.ramp(to: gain, frameCount: Int(frames))
        case .setRingerVolume(let gain, let frames):
            ringerVolume.ramp(to: gain, frameCount: Int(frames))
        }
    }

    /// Forget bus `b`'s sidechain (its duck state stays for the caller to settle).
    @inlinable @_noLocks
    func disarmSidechain(_ b: Int) {
        guard let old = buses[b].sidechain else { return }
        buses[b].sidechain = nil
        buses[b].sidechainBelowFrames = 0
        sidechainCount &-= 1
        if let k = busIndex(old.key), buses[k].keyUsers > 0 { buses[k].keyUsers &-= 1 }
    }

    // MARK: - Voice limits

    /// A source counts as a voice: see `SourceNode.isVoice`; sources of a bus that is being
    /// removed, or of the engine's own buses, do not count.
    @inlinable @inline(__always) @_noLocks
    func countsAsVoice(_ k: Int) -> Bool {
        // Commas, not && (its autoclosure would capture self: reference counting).
        guard sources[k].isVoice else { return false }
        let b = sources[k].bus.slot
        guard b >= 0, b < maxBuses, busOccupied[b], buses[b].limitsVoices, !buses[b].closing else { return false }
        return true
    }

    /// The gain source `k` is heard at now: its gain and fade times its bus's gate, gain,
    /// duck and volume, as the mixer applied them last.
    @inlinable @inline(__always) @_noLocks
    func currentGain(_ k: Int) -> Float {
        let b = sources[k].bus.slot
        let bus = buses[b]
        let v = bus.isRinger ? ringerVolume.value : volume.value
        return sources[k].gain.value * sources[k].fade.value * bus.gate.value * bus.gain.value * bus.duck.gain * v
    }

    /// Which of two voices goes first when one must: the lower priority, then the quieter
    /// current gain, then the older.
    @inlinable @inline(__always) @_noLocks
    func stealsBefore(_ a: Int, _ b: Int) -> Bool {
        if sources[a].priority != sources[b].priority { return sources[a].priority < sources[b].priority }
        let (ga, gb) = (currentGain(a), currentGain(b))
        if ga != gb { return ga < gb }
        return sources[a].voiceSerial < sources[b].voiceSerial
    }

    /// A play of source `i` (not a voice yet) at the current frame: true when it may start,
    /// having taken the voice of another if a limit — its bus's, else the engine's — is
    /// reached; false (reported `voiceRefused`) when every voice in that scope has a higher
    /// priority. One pass over the sources, only while a limit is set.
    @inlinable @_noLocks
    func admitVoice(_ i: Int) -> Bool {
        let b = sources[i].bus.slot
        guard b >= 0, b < maxBuses, busOccupied[b], buses[b].limitsVoices, !buses[b].closing else { return true }
        let busLimit = buses[b].maxVoices
        let engineLimit = maxVoices
        if busLimit <= 0, engineLimit <= 0 { return true }
        var busCount = 0
        var total = 0
        var busVictim = -1
        var victim = -1
        for k in 0..<sourceHighWater where k != i {
            guard sourceOccupied[k], countsAsVoice(k) else { continue }
            total &+= 1
            if victim < 0 {
                victim = k
            } else if stealsBefore(k, victim) {
                victim = k
            }
            guard sources[k].bus.slot == b else { continue }
            busCount &+= 1
            if busVictim < 0 {
                busVictim = k
            } else if stealsBefore(k, busVictim) {
                busVictim = k
            }
        }
        if busLimit > 0, busCount >= busLimit {
            victim = busVictim
        } else if engineLimit <= 0 {
            return true
        } else if total < engineLimit {
            return true
        }
        guard victim >= 0 else { return true }
        if sources[i].priority < sources[victim].priority {
            report(.voiceRefused(sources[i].id), at: framePosition)
            return false
        }
        report(.voiceStolen(sources[victim].id, by: sources[i].id), at: framePosition)
        sources[victim].pending = PendingHalt.stop
        sources[victim].fade.ramp(to: 0, frameCount: stealFadeFrames)
        shortenTail(&sources[victim], toFrames: stealFadeFrames)
        if !sources[victim].fade.isRamping { finishFade(&sources[victim], at: framePosition) }
        return true
    }

    // MARK: - Transport

    /// The fade-in a play or resume gets: the source's own, or by default none from the top
    /// (the material's own start keeps mixing exact) and a de-click when resuming mid-way.
    @inlinable @inline(__always) @_noLocks
    func fadeInFrames(_ node: SourceNode) -> Int {
        if node.fadeInFrames >= 0 { return node.fadeInFrames }
        return node.position == 0 ? 0 : transportFadeFrames
    }

    @inlinable @inline(__always) @_noLocks
    func play(_ node: inout SourceNode) {
        node.ended = false
        if node.running {
            switch node.pending {
            case .stop:
                // Let the fade-out finish, rewind, then start from the top.
                node.pending = PendingHalt.restart
            case .pause:
                // Cancel the pause: come back up from where it is (after a pending seek, if any).
                node.pending = PendingHalt.none
                if node.pendingSeek < 0 { node.fade.ramp(to: 1, frameCount: max(fadeInFrames(node), transportFadeFrames)) }
            case .none, .restart, .remove:
                break
            }
            return
        }
        node.running = true
        node.playFrame = framePosition
        node.pending = PendingHalt.none
        let frames = fadeInFrames(node)
        node.fade.ramp(to: 0, frameCount: 0)
        node.fade.ramp(to: 1, frameCount: frames)
    }

    /// An equal-power crossfade at the current frame from source `j` to source `i` over `n`
    /// frames (`EngineCommand.crossfade`). `i`, if it plays and waits for no fade-out (pause,
    /// stop, seek), rises along sin(πt/2) to 1: from silence when it started at this very
    /// frame (nothing of it heard yet), else from its fade's value (a source at full level
    /// stays there). `j`, if it plays and is not already on its way out, falls along
    /// cos(πt/2) from its fade's value to 0 and then stops as a stop does (`finishFade`:
    /// rewound, `sourceHalted` at the crossfade's last frame).
    @inlinable @_noLocks
    func crossfade(into i: Int, from j: Int, frameCount n: Int) {
        if sources[i].running, case .none = sources[i].pending, sources[i].pendingSeek < 0 {
            if sources[i].playFrame == framePosition { sources[i].fade.ramp(to: 0, frameCount: 0) }
            sources[i].fade.rampEqualPower(to: 1, frameCount: n)
        }
        guard sources[j].running, case .none = sources[j].pending else { return }
        sources[j].pending = PendingHalt.stop
        sources[j].fade.rampEqualPower(to: 0, frameCount: n)
        shortenTail(&sources[j], toFrames: n)
        if !sources[j].fade.isRamping { finishFade(&sources[j], at: framePosition) }
    }

    @inlinable @inline(__always) @_noLocks
    func halt(_ node: inout SourceNode, then pending: PendingHalt) {
        if node.running {
            if case .remove = node.pending { return }
            // A crossfade's fade-out already ends in a stop: a stop keeps it.
            if case .stop = pending, case .stop = node.pending, node.fade.isEqualPowerFadeOut { return }
            node.pending = pending
            node.fade.ramp(to: 0, frameCount: node.fadeOutFrames)
            shortenTail(&node, toFrames: node.fadeOutFrames)
            if !node.fade.isRamping { finishFade(&node, at: framePosition) }
        } else if case .stop = pending {
            rewind(&node)
            node.ended = false
        }
    }

    /// A seek at the current frame. A playing buffer source crossfades: the old position
    /// plays on fading out over the de-click time (`tailPosition`, `tailFade`) while the new
    /// one fades in from this frame, so the new material starts at the frame asked. Other
    /// playing sources, a buffer source fading out for a pause, stop or remove, and one whose
    /// previous seek's crossfade still runs fade out first, then jump and fade back in. A
    /// source that is not playing just moves.
    @inlinable @inline(__always) @_noLocks
    func seek(_ node: inout SourceNode, to position: Int64) {
        node.ended = false
        let target = max(position, 0)
        if node.running {
            if case .remove = node.pending { return }
            if node.bufferData != nil, transportFadeFrames > 0, node.pendingSeek < 0, node.tailPosition < 0,
                case .none = node.pending
            {
                node.tailPosition = node.position
                node.tailPhase = node.phase
                node.tailLoopsLeft = node.loopsLeft
                // From the fade's value now (a copy of it, whatever it was doing) down to 0.
                node.tailFade = node.fade
                node.tailFade.ramp(to: 0, frameCount: transportFadeFrames)
                if !node.tailFade.isRamping { node.tailPosition = -1 }
                move(&node, to: Int(clamping: target))
                node.fade.ramp(to: 0, frameCount: 0)
                node.fade.ramp(to: 1, frameCount: transportFadeFrames)
                return
            }
            node.pendingSeek = target
            node.fade.ramp(to: 0, frameCount: transportFadeFrames)
            if !node.fade.isRamping { finishFade(&node, at: framePosition) }
        } else {
            move(&node, to: Int(clamping: target))
        }
    }

    /// A fade-out of the source over `frames` began: a seek's crossfade tail still sounding
    /// is gone within it too (at once when `frames` is 0).
    @inlinable @inline(__always) @_noLocks
    func shortenTail(_ node: inout SourceNode, toFrames frames: Int) {
        guard node.tailPosition >= 0, node.tailFade.framesRemaining > frames else { return }
        node.tailFade.ramp(to: 0, frameCount: frames)
        if !node.tailFade.isRamping { node.tailPosition = -1 }
    }

    /// A fade-out reached zero: apply the pending seek, then what was waiting for it.
    @inlinable @_noLocks
    func finishFade(_ node: inout SourceNode, at frame: Int64) {
        if node.pendingSeek >= 0 {
            move(&node, to: Int(clamping: node.pendingSeek))
            node.pendingSeek = -1
        }
        let pending = node.pending
        node.pending = PendingHalt.none
        switch pending {
        case .none:
            // Only a seek was waiting: come back up at the new position.
            node.fade.ramp(to: 1, frameCount: transportFadeFrames)
        case .restart:
            rewind(&node)
            node.fade.ramp(to: 1, frameCount: fadeInFrames(node))
        case .pause, .stop:
            node.running = false
            if case .stop = pending { rewind(&node) }
            report(.sourceHalted(node.id), at: frame)
        case .remove:
            node.running = false
            node.pending = PendingHalt.remove
        }
    }

    /// A loop region for a buffer or a streaming file (inside it); anything else is ignored
    /// (the control side refuses it first). The wraps start over. A streaming file whose data
    /// ahead changes with it (a region other than the whole file, before or after) asks its
    /// worker for the data from where it is, following the new region.
    @inlinable @inline(__always) @_noLocks
    func setLoopRegion(_ node: inout SourceNode, start: Int64, end: Int64, count: Int32) {
        guard start >= 0, end > start, count >= -1, count != 0 else { return }
        switch node.content {
        case .buffer(_, let frames):
            guard end <= Int64(frames) else { return }
        case .file(let f):
            guard end <= Int64(f.frameCount) else { return }
        case .tone, .silence, .stream, .input:
            return
        }
        let wasWhole = isWholeFileLoop(&node)
        node.loopStart = Int(start)
        node.loopEnd = Int(end)
        node.loopCount = Int(count)
        node.loopsLeft = Int(count)
        refillIfLoopChanged(&node, wasWhole: wasWhole)
    }

    /// A streaming file whose data does not depend on the loop flag or its wraps: its region
    /// is the whole file (the worker writes it cyclically either way). True for other content.
    @inlinable @inline(__always) @_noLocks
    func isWholeFileLoop(_ node: inout SourceNode) -> Bool {
        guard case .file(let f) = node.content else { return true }
        return node.loopStart == 0 && node.loopEnd == f.frameCount
    }

    /// After the loop flag or region of a streaming file changed: unless the region was and is
    /// the whole file, ask its worker for the data from the current position as the loop now
    /// reads it (a new generation; a playing source may run dry until it comes, as after a seek).
    @inlinable @inline(__always) @_noLocks
    func refillIfLoopChanged(_ node: inout SourceNode, wasWhole: Bool) {
        if wasWhole, isWholeFileLoop(&node) { return }
        requestFile(&node)
    }

    /// Ask a streaming file's worker for its data from `node.position`, following the node's
    /// loop region and the wraps it has left (and its count again after the file's end, where
    /// it ends and rewinds). Other content: nothing.
    @inlinable @inline(__always) @_noLocks
    func requestFile(_ node: inout SourceNode) {
        guard case .file(var f) = node.content else { return }
        f.request(
            position: node.position, loopStart: node.loopStart, loopEnd: node.loopEnd, wraps: node.loop ? node.loopsLeft : 0,
            wrapsAfterEnd: node.loop ? node.loopCount : 0)
        node.content = .file(f)
    }

    @inlinable @inline(__always) @_noLocks
    func rewind(_ node: inout SourceNode) {
        node.loopsLeft = node.loopCount
        move(&node, to: 0)
        if case .stream(let s) = node.content { s.reset() }
    }

    /// Set the position of the content (clamped to a buffer's length), on a whole frame.
    @inlinable @inline(__always) @_noLocks
    func move(_ node: inout SourceNode, to position: Int) {
        node.phase = 0
        switch node.content {
        case .buffer(_, let count):
            node.position = min(position, count)
        case .tone(var osc):
            osc.seek(toFrame: position)
            node.content = .tone(osc)
            node.position = position
        case .file(let f):
            node.position = min(position, f.frameCount)
            requestFile(&node)
        case .silence, .stream, .input:
            node.position = position
        }
    }

    /// Empty a bus slot and the slots of its sources, and say so.
    @inlinable @_noLocks
    func finishBusRemoval(_ b: Int, at frame: Int64) {
        planEpoch &+= 1
        let id = buses[b].id
        disarmSidechain(b)
        for i in 0..<sourceHighWater where sourceOccupied[i] {
            if sources[i].bus.rawValue == id.rawValue { finishRemove(i, at: frame) }
        }
        if let chain = busEffects[b] {
            busEffects[b] = nil
            busEffectCount &-= 1
            report(.retiredEffects(chain), at: frame)
        }
        if let slot = busHostEffects[b] {
            busHostEffects[b] = nil
            report(.retiredHostEffect(slot), at: frame)
        }
        busOccupied[b] = false
        report(.busRemoved(id), at: frame)
    }

    /// Empty a source slot and say so; the control side frees what the source owned.
    @inlinable @_noLocks
    func finishRemove(_ i: Int, at frame: Int64) {
        let id = sources[i].id
        sourceOccupied[i] = false
        planEpoch &+= 1
        board.publish(slot: i, id: 0, state: .stopped, position: 0, underrunFrames: 0, frame: frame)
        report(.sourceRemoved(id), at: frame)
    }
}
