#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The default `HTTPTransport`: URLSession.
///
/// Bodies are never logged. A call that gets no response throws `PaymentError` with code
/// `.transport`; retrying with the same trade number is safe.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let seconds = Double(request.timeout.components.seconds) + Double(request.timeout.components.attoseconds) / 1e18
        var urlRequest = URLRequest(url: request.url, timeoutInterval: seconds)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw PaymentError(
                .transport,
                "\(request.method) \(request.url.host ?? "")\(request.url.path) got no response: \((error as NSError).localizedDescription)"
            )
        }
        guard let http = response as? HTTPURLResponse else {
            throw PaymentError(.transport, "\(request.url.path) answered with something other than HTTP")
        }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            headers.add("\(name)", "\(value)")
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}
