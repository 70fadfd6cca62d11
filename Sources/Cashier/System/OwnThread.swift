import Foundation

/// Work that blocks or burns CPU for a while — key generation, a blocking connect — run on a new
/// thread while the caller waits without holding one of Swift's few cooperative threads (on a
/// 2-core machine there are two, and every server handler waits for them).
public enum OwnThread {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
