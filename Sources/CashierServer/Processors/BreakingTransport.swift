import Cashier
import Foundation

/// The transport every provider call goes through: ``ProviderBreaker`` decides whether it is
/// sent at all, and learns from how it went. With a ``ServerLog``, each call is one line —
/// provider, method, host, path (never the query or the body), status or why it failed, time,
/// and the id of the request whose handler made it (``RequestID/current``; none for a job's).
struct BreakingTransport: HTTPTransport {
    let provider: String
    let breaker: ProviderBreaker
    let base: any HTTPTransport
    var log: ServerLog? = nil

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let started = ContinuousClock.now
        do {
            try breaker.admit(provider)
        } catch {
            logged(request, started, outcome: ["error": "breaker_open"])
            throw error
        }
        do {
            let response = try await base.send(request)
            breaker.record(provider, outage: response.status >= 500)
            logged(request, started, outcome: ["status": .int(response.status)])
            return response
        } catch {
            breaker.record(provider, outage: true)
            logged(request, started, outcome: ["error": "no_answer"])
            throw error
        }
    }

    private func logged(_ request: HTTPRequest, _ started: ContinuousClock.Instant, outcome: [String: ServerLog.Value]) {
        guard let log else { return }
        let elapsed = ContinuousClock.now - started
        var fields = outcome
        fields["provider"] = .string(provider)
        fields["method"] = .string(request.method)
        fields["host"] = .string(request.url.host ?? "")
        fields["path"] = .string(request.url.path)
        fields["ms"] = .double((Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000).rounded())
        if let id = RequestID.current { fields["request_id"] = .string(id) }
        log.record("provider_call", fields)
    }
}
