import Synchronization

/// A small pool of OpenSSL contexts that were keyed once.
///
/// Keyed contexts (an HMAC or AES-GCM context after its key schedule) are expensive to
/// create and cheap to reuse: `openssl speed` reuses one for every operation. Each
/// operation takes a context from the pool (or makes one), uses it alone, and returns it,
/// so the pool is safe to share between threads.
final class ContextPool: @unchecked Sendable {
    /// A context owned by the pool; only one thread touches it at a time.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let idle = Mutex<[Handle]>([])
    private let make: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void
    private let capacity: Int

    /// - Parameters:
    ///   - capacity: how many idle contexts to keep; more are freed after use.
    ///   - make: makes a keyed context (usually by duplicating a template).
    ///   - free: frees one.
    init(
        capacity: Int = 8,
        make: @escaping @Sendable () -> OpaquePointer?,
        free: @escaping @Sendable (OpaquePointer) -> Void
    ) {
        self.capacity = capacity
        self.make = make
        self.free = free
    }

    /// Runs `body` with a context that no other thread uses meanwhile.
    func withContext<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result {
        let pooled = idle.withLock { $0.popLast()?.pointer }
        guard let context = pooled ?? make() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "could not allocate an OpenSSL context")
        }
        defer {
            let kept = idle.withLock { contexts -> Bool in
                guard contexts.count < capacity else { return false }
                contexts.append(Handle(pointer: context))
                return true
            }
            if !kept { free(context) }
        }
        return try body(context)
    }

    deinit {
        for handle in idle.withLock({ $0 }) { free(handle.pointer) }
    }
}
