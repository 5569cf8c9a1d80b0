import CTuttiTestSupport

/// Count malloc-family calls made by the calling thread while `body` runs.
public func countMallocs(_ body: () -> Void) -> UInt64 {
    tutti_malloc_counter_start()
    body()
    return tutti_malloc_counter_stop()
}
