import Cashier

/// The transport every provider call goes through: ``ProviderBreaker`` decides whether it is
/// sent at all, and learns from how it went.
struct BreakingTransport: HTTPTransport {
    let provider: String
    let breaker: ProviderBreaker
    let base: any HTTPTransport

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try breaker.admit(provider)
        do {
            let response = try await base.send(request)
            breaker.record(provider, outage: response.status >= 500)
            return response
        } catch {
            breaker.record(provider, outage: true)
            throw error
        }
    }
}
