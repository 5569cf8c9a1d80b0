/// Commands taken off the command ring and not yet due, ordered by (frame, sequence): a
/// binary min-heap in preallocated storage, so a command for now never waits behind one
/// sent earlier for a later frame, and commands for the same frame keep the order they
/// were made in. Capacity equals the command ring's: the control side never has more than
/// that many commands in flight (`Engine` counts them), so `push` cannot fail.
///
/// Thread: the render thread, after construction. Concrete (not generic) so it is checked
/// `@_noLocks` in debug builds too.
@usableFromInline struct PendingCommands {
    @usableFromInline let storage: UnsafeMutablePointer<RenderCommand>
    @usableFromInline let capacity: Int
    @usableFromInline var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    /// Control side, at engine teardown.
    func deallocate() { storage.deallocate() }

    @inlinable var isEmpty: Bool { @_noLocks get { count == 0 } }

    /// The frame of the earliest command (only when not empty).
    @inlinable var nextFrame: Int64 { @_noLocks get { storage[0].frame } }

    @inlinable @inline(__always) @_noLocks
    static func precedes(_ a: RenderCommand, _ b: RenderCommand) -> Bool {
        a.frame < b.frame || (a.frame == b.frame && a.sequence < b.sequence)
    }

    /// Insert; false only if full (which the control side's accounting rules out).
    @inlinable @_noLocks
    mutating func push(_ command: RenderCommand) -> Bool {
        guard count < capacity else { return false }
        var i = count
        count &+= 1
        while i > 0 {
            let parent = (i &- 1) >> 1
            guard PendingCommands.precedes(command, storage[parent]) else { break }
            storage[i] = storage[parent]
            i = parent
        }
        storage[i] = command
        return true
    }

    /// Remove and return the earliest command (only when not empty).
    @inlinable @_noLocks
    mutating func pop() -> RenderCommand {
        let top = storage[0]
        count &-= 1
        if count > 0 {
            let last = storage[count]
            var i = 0
            while true {
                let left = 2 &* i &+ 1
                if left >= count { break }
                let right = left &+ 1
                var child = left
                if right < count, PendingCommands.precedes(storage[right], storage[left]) { child = right }
                guard PendingCommands.precedes(storage[child], last) else { break }
                storage[i] = storage[child]
                i = child
            }
            storage[i] = last
        }
        return top
    }
}
