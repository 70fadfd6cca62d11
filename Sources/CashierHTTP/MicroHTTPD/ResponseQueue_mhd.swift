internal import CMicroHTTPD
import Foundation

/// Hands an answer to libmicrohttpd: an in-memory body (built once when it is prepared), a file
/// sent from disk, or a stream sent chunked as its producer writes it.
enum ResponseQueue {
    static func queue(_ response: HTTPServerResponse, on connection: OpaquePointer, _ core: HTTPServer.Core) -> MHD_Result {
        if let path = response.bodyFile {
            return queueFile(path, response, on: connection)
        }
        if let produce = response.stream {
            return queueStream(produce, response, on: connection, core)
        }
        if let prepared = response.preparedCopy {
            // Built once, queued on any number of connections: libmicrohttpd counts its references.
            guard let built = prepared.built({ build(response) }) else { return .NO }
            return MHD_queue_response(connection, UInt32(response.status), built)
        }
        return queueBuilt(build(response), response, on: connection)
    }
}

/// libmicrohttpd's response for an in-memory body, with the headers that may be sent.
private func build(_ response: HTTPServerResponse) -> OpaquePointer? {
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    if let created { addHeaders(of: response, to: created) }
    return created
}

/// The response's header fields, except any holding a line break.
private func addHeaders(of response: HTTPServerResponse, to created: OpaquePointer) {
    for field in response.headers where !containsNewline(field.name) && !containsNewline(field.value) {
        _ = MHD_add_response_header(created, field.name, field.value)
    }
}

/// A file body: opened, unlinked (it lives until libmicrohttpd closes the descriptor), and sent
/// from disk. A file that cannot be opened is a 500.
private func queueFile(_ path: String, _ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    unlink(path)
    var information = stat()
    guard descriptor >= 0, fstat(descriptor, &information) == 0 else {
        if descriptor >= 0 { close(descriptor) }
        let failed = HTTPServerResponse.error(status: 500, code: "internal_error", message: "the response could not be read")
        return queueBuilt(build(failed), failed, on: connection)
    }
    // libmicrohttpd owns the descriptor from here and closes it with the response.
    let created = MHD_create_response_from_fd(Int(information.st_size), descriptor)
    if let created { addHeaders(of: response, to: created) }
    return queueBuilt(created, response, on: connection)
}

private func queueBuilt(_ created: OpaquePointer?, _ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

/// Whether a header name or value holds a line break (and so must never be sent). Printable
/// ASCII, the usual case, is settled by its bytes; anything else by its characters.
private func containsNewline(_ text: String) -> Bool {
    if text.utf8.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) }) { return false }
    return text.contains(where: \.isNewline)
}

/// What a streamed body's content reader and free callback reach: the writer and its connection.
private final class StreamContext {
    let writer: HTTPStreamWriter
    let connection: SuspendedConnection
    let core: HTTPServer.Core

    init(writer: HTTPStreamWriter, connection: SuspendedConnection, core: HTTPServer.Core) {
        self.writer = writer
        self.connection = connection
        self.core = core
    }
}

/// A body of unknown length, sent chunked as its producer writes it.
private func queueStream(
    _ produce: @escaping @Sendable (HTTPStreamWriter) async -> Void, _ response: HTTPServerResponse, on connection: OpaquePointer,
    _ core: HTTPServer.Core
) -> MHD_Result {
    let writer = HTTPStreamWriter()
    let context = StreamContext(writer: writer, connection: SuspendedConnection(pointer: connection), core: core)
    let stopping = core.streams.withLock { streams -> Bool in
        if !streams.stopping { streams.open[ObjectIdentifier(writer)] = writer }
        return streams.stopping
    }
    let created = MHD_create_response_from_callback(
        UInt64.max, 4096, streamReader, Unmanaged.passRetained(context).toOpaque(), streamFreed)
    guard let created else {
        streamFreed(Unmanaged.passUnretained(context).toOpaque())
        return .NO
    }
    addHeaders(of: response, to: created)
    if stopping { writer.finish() } else { writer.start(produce) }
    return queueBuilt(created, response, on: connection)
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    let context = Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue()
    switch context.writer.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max), suspend: context.connection) {
    case .bytes(let count): return count
    case .end: return -1  // MHD_CONTENT_READER_END_OF_STREAM
    case .waiting: return 0  // suspended until the next write
    }
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let context = Unmanaged<StreamContext>.fromOpaque(cls).takeRetainedValue()
    context.core.streams.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(context.writer)) }
    context.writer.close()
}
