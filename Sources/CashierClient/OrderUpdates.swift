import CashierWire
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CashierClient {
    /// The order as it changes, from the server's event stream (`GET /v1/orders/{id}/stream`,
    /// Server-Sent Events): the order at once, then again at every change — its status, a
    /// payment started, failed or refunded — as the server records it. For a screen that shows
    /// "paid" the moment the provider's notification lands, without asking in a loop.
    ///
    /// ```swift
    /// for try await order in cashier.orderUpdates(orderID: id, clientSecret: secret) {
    ///     if order.status.isPaid { showReceipt(); break }
    /// }
    /// ```
    ///
    /// The sequence ends when the server ends the stream (the order closed or refunded in full,
    /// or after five minutes: ask again to go on), and throws ``CashierClientError`` when it cannot
    /// be opened (404 for a wrong id or secret). Stopping the loop closes the connection.
    public func orderUpdates(orderID: String, clientSecret: String) -> AsyncThrowingStream<ClientOrder, any Error> {
        let query = clientSecret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? clientSecret
        let base = baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return AsyncThrowingStream { continuation in
            guard let url = URL(string: base + "/v1/orders/\(orderID)/stream?client_secret=\(query)") else {
                continuation.finish(throwing: CashierClientError(code: "invalid_request", message: "cannot form the stream's URL"))
                return
            }
            var request = URLRequest(url: url, timeoutInterval: 60)
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            let reader = EventStreamReader(continuation: continuation)
            let session = URLSession(configuration: .ephemeral, delegate: reader, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// Reads `text/event-stream` as it arrives and yields each `order` event's order.
/// (`NSLock`, not `Mutex`: this SDK runs on every OS version an app supports.)
final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<ClientOrder, any Error>.Continuation
    private let lock = NSLock()
    /// Bytes not yet ending in a blank line, and whether the answer was an error (under `lock`).
    private var pending: [UInt8] = []
    private var failure: (status: Int, body: [UInt8])?

    init(continuation: AsyncThrowingStream<ClientOrder, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        // 204: the order can change no more and this client has seen it — the end, not an error.
        if status != 200 && status != 204 { lock.withLock { failure = (status, []) } }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events = lock.withLock { () -> [String] in
            if failure != nil {
                failure?.body += data
                return []
            }
            pending += data
            var events: [String] = []
            // Events end at a blank line ("\n\n"; the server never sends "\r").
            while let end = Self.blankLine(in: pending) {
                events.append(String(decoding: pending[..<end], as: UTF8.self))
                pending.removeFirst(end + 2)
            }
            return events
        }
        for event in events {
            if let order = Self.order(fromEvent: event) { continuation.yield(order) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let failure = lock.withLock({ failure }) {
            let detail = (try? JSONDecoder().decode(HTTPErrorBody.self, from: Data(failure.body)))?.error
            continuation.finish(
                throwing: CashierClientError(
                    code: detail?.code ?? "http_\(failure.status)",
                    message: detail?.message ?? "the stream answered HTTP \(failure.status)", httpStatus: failure.status))
        } else if let error, (error as? URLError)?.code != .cancelled {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }

    private static func blankLine(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0A && bytes[index + 1] == 0x0A { return index }
        return nil
    }

    /// The order of an `event: order` block (its `data:` lines joined); nil for comments and others.
    static func order(fromEvent block: String) -> ClientOrder? {
        var name = "message"
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix(":") {
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
            switch parts.first.map(String.init) {
            case "event": name = value
            case "data": data.append(value)
            default: continue
            }
        }
        guard name == "order" else { return nil }
        return try? JSONDecoder().decode(ClientOrder.self, from: Data(data.joined(separator: "\n").utf8))
    }
}
