/// An OpenSSL object that Swift owns: `free` runs when the last reference goes away.
///
/// Used for immutable templates (a keyed HMAC or cipher context that is only ever duplicated),
/// which is why sharing it between threads is sound.
final class OwnedPointer: @unchecked Sendable {
    let pointer: OpaquePointer
    private let free: (OpaquePointer) -> Void

    init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer) -> Void) {
        self.pointer = pointer
        self.free = free
    }

    deinit {
        free(pointer)
    }
}
