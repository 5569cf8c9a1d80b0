/// The sessions or the sources of a ``PolicyState``, in registration order: a random-access
/// collection (read it like an array) that also remembers, while the policy applies an action,
/// which entries the action wrote and what they were before. That is how an action costs what it
/// changes: only those entries' derived status is recomputed (docs/performance.md, "Policy
/// actions"). Equality and hashing compare the entries only.
/// Value type: any thread; the engine's control side owns the live copy.
public struct PolicyList<Element: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
    /// The entries.
    var elements: [Element] = []
    /// What the action being applied wrote (not part of the value).
    var touches = Touches()

    struct Touches: Hashable, Sendable {
        /// Recording (between ``beginTracking()`` and ``endTracking()``).
        var on = false
        /// An entry was added or taken out: the indices moved.
        var structural = false
        /// Per index: written since tracking began.
        var marked: [Bool] = []
        /// The entries written, with their value before the first write, in the order written.
        var written: [(index: Int, old: Element)] = []

        static func == (_: Touches, _: Touches) -> Bool { true }
        func hash(into _: inout Hasher) {}
    }

    init() {}

    /// The first index (0). Any thread.
    public var startIndex: Int { 0 }
    /// One past the last index (the count). Any thread.
    public var endIndex: Int { elements.count }

    /// The entry at `i` (registration order). Read on any thread; written only by the policy.
    public internal(set) subscript(i: Int) -> Element {
        get { elements[i] }
        _modify {
            if touches.on, !touches.marked[i] {
                touches.marked[i] = true
                touches.written.append((i, elements[i]))
            }
            yield &elements[i]
        }
    }

    /// The same entries in the same order (what an action wrote is not compared). Any thread.
    public static func == (a: PolicyList, b: PolicyList) -> Bool { a.elements == b.elements }
    /// Hashes the entries in order (as `==` compares them). Any thread.
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }

    mutating func append(_ element: Element) {
        if touches.on { touches.structural = true }
        elements.append(element)
    }

    mutating func remove(at i: Int) {
        if touches.on { touches.structural = true }
        elements.remove(at: i)
    }

    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        if touches.on { touches.structural = true }
        try elements.removeAll(where: shouldBeRemoved)
    }

    /// Starts recording writes. O(1), plus O(entries added) after
    /// additions and O(count) once after a removal.
    mutating func beginTracking() {
        if touches.marked.count > elements.count { touches.marked = [] }
        if touches.marked.count < elements.count {
            touches.marked.append(contentsOf: repeatElement(false, count: elements.count - touches.marked.count))
        }
        touches.on = true
        touches.structural = false
    }

    /// Stops recording; returns the entries written (with their old values, in the order first
    /// written) and whether entries were added or removed. O(entries written).
    mutating func endTracking() -> (written: [(index: Int, old: Element)], structural: Bool) {
        let written = touches.written
        let structural = touches.structural
        touches.on = false
        touches.written = []
        if structural {
            touches.marked = []
        } else {
            for (i, _) in written { touches.marked[i] = false }
        }
        return (written, structural)
    }
}
