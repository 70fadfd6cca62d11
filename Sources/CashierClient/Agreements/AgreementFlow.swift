public import Foundation

/// Signing an agreement from the app: the wallet's step, then your backend asked — never the
/// wallet — until the server says the agreement is active, failed or terminated.
///
/// The app holds no secret key, so it cannot ask the Cashier server about an agreement itself:
/// `refresh` asks your backend, which calls `GET /v1/agreements/{id}` (that call asks the
/// provider while the agreement is pending) and returns the answer.
///
/// ```swift
/// let flow = AgreementFlow(
///     refresh: { id in try Agreement(json: try await backend.get("/agreements/\(id)")) },
///     authorize: { id, token in try await backend.post("/agreements/\(id)/authorize", token) })
/// let agreement = try Agreement(json: try await backend.post("/agreements", plan))
/// switch try await flow.sign(agreement, launcher: WeChatAgreementLauncher()) {
/// case .active: showSubscribed()
/// case .pending: showWillConfirm()  // the provider's notification may still come
/// case .failed, .terminated, .cancelled: showNotSubscribed()
/// }
/// ```
public struct AgreementFlow: Sendable {
    /// Your backend's answer for agreement `agreementID`, as the server gives it now.
    public typealias Refresh = @Sendable (_ agreementID: String) async throws -> Agreement
    /// Sends an Apple Pay token to your backend, which calls `POST /v1/agreements/{id}/authorize`.
    public typealias Authorize = @Sendable (_ agreementID: String, _ paymentJSON: Data) async throws -> Void

    private let refresh: Refresh
    private let authorize: Authorize?
    /// Starts a stopwatch on the flow's clock: the time since it started, when called.
    private let stopwatch: @Sendable () -> @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - clock: what the waits between questions are measured and slept on (a test's clock in tests).
    ///   - refresh: asks your backend for the agreement as the server has it now.
    ///   - authorize: sends an Apple Pay sheet's token to your backend, for a launcher that leaves
    ///     that to the flow (``WalletOutcome/applePayAuthorized(paymentJSON:)``); `nil` without Apple Pay.
    public init<C: Clock<Duration>>(clock: C, refresh: @escaping Refresh, authorize: Authorize? = nil) {
        self.refresh = refresh
        self.authorize = authorize
        stopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
        sleep = { try await clock.sleep(for: $0) }
    }

    /// A flow on the system's continuous clock.
    /// - Parameters:
    ///   - refresh: asks your backend for the agreement as the server has it now.
    ///   - authorize: sends an Apple Pay sheet's token to your backend, for a launcher that leaves
    ///     that to the flow (``WalletOutcome/applePayAuthorized(paymentJSON:)``); `nil` without Apple Pay.
    public init(refresh: @escaping Refresh, authorize: Authorize? = nil) {
        self.init(clock: ContinuousClock(), refresh: refresh, authorize: authorize)
    }

    /// The whole signing: the launch handed to the wallet, then — unless the payer cancelled —
    /// the server asked until it says how it ended. An agreement no longer pending is not launched.
    /// - Parameters:
    ///   - agreement: the pending agreement your backend created, with its ``Agreement/launch``.
    ///   - launcher: the wallet's launcher for the agreement's method.
    ///   - timeout: how long to wait for the server after the wallet handed back.
    /// - Returns: the server's word, or ``AgreementResult/pending(_:wallet:)`` at the deadline.
    /// - Throws: ``CashierClientError`` `invalid_state` for a pending agreement without a launch,
    ///   what the launcher throws, and what ``confirm(_:after:timeout:firstDelay:)`` throws.
    public func sign(_ agreement: Agreement, launcher: any AgreementLauncher, timeout: Duration = .seconds(60)) async throws
        -> AgreementResult
    {
        if let settled = Self.settled(agreement) { return settled }
        guard let launch = agreement.launch else {
            throw CashierClientError(
                code: "invalid_state",
                message: "agreement \(agreement.id) has no launch: only the answer to its creation carries one; create another")
        }
        let outcome = try await launcher.launch(launch, for: agreement)
        return try await finish(agreement, after: outcome, timeout: timeout)
    }

    /// What follows the wallet's answer: nothing when the payer cancelled; otherwise an Apple Pay
    /// token is sent through `authorize`, then the server is asked until it says how it ended.
    /// Call it directly when the wallet's answer arrives by URL after the app was relaunched.
    /// - Parameters:
    ///   - agreement: the agreement that was launched.
    ///   - outcome: what the wallet said.
    ///   - timeout: how long to wait for the server.
    /// - Returns: the server's word (the wallet's only when the payer cancelled).
    /// - Throws: ``CashierClientError`` `invalid_state` for an Apple Pay token without `authorize`,
    ///   and what ``confirm(_:after:timeout:firstDelay:)`` throws.
    public func finish(_ agreement: Agreement, after outcome: WalletOutcome, timeout: Duration = .seconds(60)) async throws
        -> AgreementResult
    {
        if outcome.interpretation == .cancelled { return .cancelled(agreement) }
        if case .applePayAuthorized(let payment) = outcome {
            guard let authorize else {
                throw CashierClientError(
                    code: "invalid_state", message: "an Apple Pay token needs the flow's authorize, which sends it to your backend")
            }
            try await authorize(agreement.id, payment)
        }
        return try await confirm(agreement, after: outcome, timeout: timeout)
    }

    /// Asks your backend until the agreement is active, failed or terminated, or until
    /// `timeout`; waits grow from `firstDelay` to 4 s, measured on the flow's clock. Failures
    /// to reach the backend are retried until then, except a 401 or 404 (``CashierClientError``
    /// with that `httpStatus`), which waiting will not mend.
    /// - Parameters:
    ///   - agreement: the agreement, as last seen.
    ///   - outcome: what the wallet said, kept in a ``AgreementResult/pending(_:wallet:)`` answer.
    ///   - timeout: how long to keep asking.
    ///   - firstDelay: the first wait.
    /// - Returns: the server's word, or ``AgreementResult/pending(_:wallet:)`` with the last
    ///   agreement seen when it still says pending at the deadline.
    /// - Throws: ``CashierClientError`` `confirmation_timeout` when the backend never answered,
    ///   naming its last error; a 401 or 404 at once.
    public func confirm(
        _ agreement: Agreement, after outcome: WalletOutcome = .qrCodeShown, timeout: Duration = .seconds(60),
        firstDelay: Duration = .milliseconds(500)
    ) async throws -> AgreementResult {
        let elapsed = stopwatch()
        var delay = firstDelay
        var lastSeen: Agreement?
        var lastError: (any Error)?
        while true {
            do {
                let seen = try await refresh(agreement.id)
                lastSeen = seen
                if let settled = Self.settled(seen) { return settled }
            } catch let error as CashierClientError where error.httpStatus == 404 || error.httpStatus == 401 {
                throw error  // wrong id or credentials: waiting will not help
            } catch {
                lastError = error
            }
            guard elapsed() + delay < timeout else { break }
            try await sleep(delay)
            delay = min(delay * 2, .seconds(4))
        }
        guard let lastSeen else {
            throw CashierClientError(
                code: "confirmation_timeout",
                message: "your backend did not say how agreement \(agreement.id) stands in time"
                    + (lastError.map { " (last error: \($0))" } ?? "") + "; ask again later")
        }
        return .pending(lastSeen, wallet: outcome)
    }

    /// The result for an agreement the server has settled; `nil` while it is pending.
    static func settled(_ agreement: Agreement) -> AgreementResult? {
        switch agreement.status {
        case .active: .active(agreement)
        case .failed: .failed(agreement)
        case .terminated: .terminated(agreement)
        case .pending, .unknown: nil
        }
    }
}
