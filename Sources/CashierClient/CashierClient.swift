public import CashierWire
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// The app's side of Cashier: talks to your Cashier server with the publishable key and an
/// order's client secret, hands the wallet its parameters, and asks the server — never the
/// wallet — whether the order is paid.
///
/// ```swift
/// let cashier = CashierClient(baseURL: URL(string: "https://pay.example.com")!, publishableKey: "pk_live_…")
/// let result = try await cashier.pay(orderID: id, clientSecret: secret, method: .wechatApp, launcher: WeChatLauncher())
/// if case .paid = result { showReceipt() }
/// ```
public struct CashierClient: Sendable {
    public let baseURL: URL
    private let publishableKey: String
    private let session: URLSession

    public init(baseURL: URL, publishableKey: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.publishableKey = publishableKey
        self.session = session
    }

    // MARK: The server

    /// The order as the server knows it.
    public func order(id: String, clientSecret: String) async throws -> ClientOrder {
        let query = clientSecret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? clientSecret
        return try Self.decode(ClientOrder.self, from: try await send("GET", "/v1/orders/\(id)?client_secret=\(query)"), "order")
    }

    /// Starts a payment and returns what the wallet needs.
    /// - Parameters:
    ///   - orderID: the order your backend created.
    ///   - clientSecret: the order's client secret, from your backend.
    ///   - method: the wallet and its flow.
    ///   - returnURL: for `alipayWap`, where Alipay's web cashier sends the payer back.
    public func startPayment(orderID: String, clientSecret: String, method: PaymentMethod, returnURL: URL? = nil) async throws
        -> WalletParameters
    {
        guard PaymentMethod.startedFromApps.contains(method) else { throw WalletParameters.notFromTheApp(method) }
        let body = PaymentRequestBody(method: method.rawValue, client_secret: clientSecret, return_url: returnURL?.absoluteString)
        let answer = try await send("POST", "/v1/orders/\(orderID)/payments", body)
        return try WalletParameters(Self.decode(PaymentStartJSON.self, from: answer, "\(method.rawValue) parameters"), method: method)
    }

    /// Sends an Apple Pay token (the `PKPayment` as JSON) for the server to verify, decrypt and
    /// authorise. - Returns: the status to complete the sheet with (`PKPaymentAuthorizationStatus`).
    public func authorizeApplePay(orderID: String, clientSecret: String, paymentJSON: Data) async throws -> ApplePayAuthorization {
        guard let token = try? JSONDecoder().decode(JSONObject.self, from: paymentJSON) else {
            throw CashierClientError(code: "invalid_token", message: "the Apple Pay payment is not a JSON object")
        }
        let answer = try await send(
            "POST", "/v1/orders/\(orderID)/payments/applepay/authorize", ApplePayAuthorizeBody(token: token, client_secret: clientSecret))
        let authorization = try Self.decode(ApplePayAuthorizationAnswer.self, from: answer, "Apple Pay authorisation")
        return ApplePayAuthorization(
            status: authorization.status, orderStatus: ClientOrder.Status(rawValue: authorization.order_status) ?? .unknown,
            errors: authorization.errors ?? [])
    }

    /// Tells the server what the payer changed on the sheet (a shipping method, a shipping
    /// address, a coupon code); the server reprices the order and answers the new summary.
    public func updateApplePaySheet(orderID: String, clientSecret: String, change: ApplePaySheetUpdate.Change) async throws
        -> ApplePaySheetUpdate
    {
        let body = ApplePaySheetUpdate.Request(change, clientSecret: clientSecret)
        let answer = try await send("POST", "/v1/orders/\(orderID)/payments/applepay/update", body)
        return try ApplePaySheetUpdate(Self.decode(ApplePaySheetUpdate.Answer.self, from: answer, "sheet update"))
    }

    // MARK: Confirmation

    /// Asks the server until the order is paid or can no longer be (closed, failed, refunded), or
    /// until `timeout`; waits grow from 0.5 s to 4 s. Network failures are retried until then. A
    /// server that asks for a longer wait (429 with `Retry-After`: many payers behind one address)
    /// gets it; when that wait would pass `timeout`, the confirmation ends at once.
    /// - Throws: ``CashierClientError`` `confirmation_timeout` with the last status seen and the
    ///   last error.
    public func confirm(orderID: String, clientSecret: String, timeout: Duration = .seconds(60), firstDelay: Duration = .milliseconds(500))
        async throws -> ClientOrder
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var delay = firstDelay
        var lastSeen: ClientOrder?
        var lastError: (any Error)?
        while true {
            var wait = delay
            do {
                let order = try await order(id: orderID, clientSecret: clientSecret)
                lastSeen = order
                if order.status != .created && order.status != .pending { return order }
            } catch let error as CashierClientError where error.httpStatus == 404 || error.httpStatus == 401 {
                throw error  // wrong id or keys: waiting will not help
            } catch {
                lastError = error
                // The server's own wait, when it asked for one: asking sooner is refused again.
                if let asked = (error as? CashierClientError)?.retryAfter { wait = max(wait, asked) }
            }
            guard clock.now.advanced(by: wait) < deadline else { break }
            try await Task.sleep(for: wait)
            delay = min(delay * 2, .seconds(4))
        }
        throw CashierClientError(
            code: "confirmation_timeout",
            message: "the server did not confirm the payment in time (last status: \(lastSeen?.status.rawValue ?? "unknown")"
                + (lastError.map { "; last error: \($0)" } ?? "") + "); ask again later, it may still be paid")
    }

    /// The whole payment: start it, hand it to the wallet, and — unless the payer cancelled — let
    /// the server say how it ended. A wallet that reports success is never taken at its word.
    public func pay(
        orderID: String, clientSecret: String, method: PaymentMethod, launcher: any PaymentLauncher, timeout: Duration = .seconds(60),
        returnURL: URL? = nil
    ) async throws -> PaymentResult {
        let order = try await order(id: orderID, clientSecret: clientSecret)
        let parameters = try await startPayment(orderID: orderID, clientSecret: clientSecret, method: method, returnURL: returnURL)
        let outcome = try await launcher.launch(parameters, for: order)
        return try await finish(orderID: orderID, clientSecret: clientSecret, after: outcome, timeout: timeout)
    }

    /// What follows a wallet's answer: nothing when the payer cancelled; otherwise the server is
    /// asked (an Apple Pay token is first sent to it) until it says how the payment ended. Call it
    /// directly when the wallet's answer arrives by URL (``WalletOutcome/init(alipayCallbackURL:)``,
    /// ``WalletOutcome/init(wechatCallbackURL:)``), e.g. after the app was relaunched.
    public func finish(orderID: String, clientSecret: String, after outcome: WalletOutcome, timeout: Duration = .seconds(60))
        async throws -> PaymentResult
    {
        if case .cancelled = outcome.interpretation { return .cancelled }
        if case .applePayAuthorized(let payment) = outcome {
            // The sheet's token goes to the server, which verifies, decrypts and authorises it.
            _ = try await authorizeApplePay(orderID: orderID, clientSecret: clientSecret, paymentJSON: payment)
        }
        let confirmed: ClientOrder
        do {
            confirmed = try await confirm(orderID: orderID, clientSecret: clientSecret, timeout: timeout)
        } catch let error as CashierClientError where error.code == "confirmation_timeout" {
            // Still pending at the deadline: not paid as far as the server knows (it may be later).
            confirmed = try await self.order(id: orderID, clientSecret: clientSecret)
        }
        return confirmed.status.isPaid ? .paid(confirmed) : .notPaid(confirmed, wallet: outcome)
    }

    // MARK: Transport

    /// The body of the server's 2xx answer to `method` `path` with `body` as JSON.
    func send(_ method: String, _ path: String, _ body: some Encodable) async throws -> Data {
        try await send(method, path, json: try JSONEncoder().encode(body))
    }

    /// The body of the server's 2xx answer to `method` `path` (with `json` as the body, when given).
    /// - Throws: ``CashierClientError`` with the server's code and message for any other status.
    func send(_ method: String, _ path: String, json body: Data? = nil) async throws -> Data {
        guard let url = URL(string: baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw CashierClientError(code: "invalid_request", message: "cannot form a URL for \(path)")
        }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue("Bearer \(publishableKey)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let error = (try? JSONDecoder().decode(HTTPErrorBody.self, from: data))?.error
            let wait = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            throw CashierClientError(
                code: error?.code ?? "http_\(status)", message: error?.message ?? "the server answered HTTP \(status)",
                httpStatus: status, retryAfter: wait.flatMap { $0 >= 0 ? .seconds($0) : nil })
        }
        return data
    }

    /// `data` read as `type`. - Throws: ``CashierClientError`` `invalid_response` naming `what`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, _ what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as CashierClientError {
            throw error
        } catch {
            throw CashierClientError(code: "invalid_response", message: "the server's \(what) cannot be read: \(error)")
        }
    }
}
