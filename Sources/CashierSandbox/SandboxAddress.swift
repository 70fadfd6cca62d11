import Synchronization

/// Where the sandbox listens, once it does: the simulators link to its payer pages with it.
public final class SandboxAddress: Sendable {
    private let base = Mutex<String?>(nil)

    public init() {}

    /// `http://127.0.0.1:PORT/`, or `nil` before the sandbox starts.
    public var value: String? { base.withLock { $0 } }

    func set(_ value: String) { base.withLock { $0 = value } }
}
