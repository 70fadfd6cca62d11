/// Waits until `condition` holds, asking every `interval`, for at most `timeout` by the clock
/// (not a count of sleeps: on two loaded cores a sleep can take far longer than asked).
/// - Returns: whether it held in time; the last answer is asked after the deadline too.
///
/// ```swift
/// #expect(try await eventually { try await store.order(id: id)?.status == .paid })
/// ```
@discardableResult
public func eventually(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
