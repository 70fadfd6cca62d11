public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Plays the WeChat app, the Alipay app and the Apple Pay sheet against the Cashier sandbox, so
/// an app's whole payment flow runs in tests (on Linux too): it pays, cancels, fails — or, to
/// prove the app does not believe it, reports success without paying.
public struct SandboxLauncher: PaymentLauncher {
    public enum Behavior: Sendable {
        case pay
        case cancel
        case fail
        /// The wallet says "success" but no money moves.
        case reportSuccessWithoutPaying
    }

    public let sandboxURL: URL
    public let behavior: Behavior
    private let session: URLSession

    public init(sandboxURL: URL, behavior: Behavior = .pay, session: URLSession = .shared) {
        self.sandboxURL = sandboxURL
        self.behavior = behavior
        self.session = session
    }

    public func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome {
        let outcome =
            switch behavior {
            case .pay: "success"
            case .cancel: "cancel"
            case .fail: "fail"
            case .reportSuccessWithoutPaying: ""
            }
        switch parameters {
        case .wechat:
            if behavior == .reportSuccessWithoutPaying { return .wechat(errCode: 0) }
            _ = try await post("sandbox/pay", ["provider": "wechat", "out_trade_no": order.outTradeNo, "outcome": outcome])
            return .wechat(errCode: behavior == .pay ? 0 : (behavior == .cancel ? -2 : -1))
        case .alipayOrderString(let orderString):
            if behavior == .reportSuccessWithoutPaying { return .alipay(resultStatus: "9000", memo: "", result: "{}") }
            let data = try await post("sandbox/pay", ["provider": "alipay", "order_string": orderString, "outcome": outcome])
            let answer = try? JSONDecoder().decode(AlipayAnswer.self, from: data)
            return .alipay(resultStatus: answer?.resultStatus ?? "6004", memo: answer?.memo ?? "", result: answer?.result ?? "")
        case .webPage(let url):
            // The browser: opening Alipay's cashier creates its trade; then the payer acts.
            if url.absoluteString.contains("/alipay/") { _ = try await session.data(from: url) }
            if behavior == .pay || behavior == .fail {
                let provider = url.absoluteString.contains("/alipay/") ? "alipay" : "wechat"
                _ = try await post("sandbox/pay", ["provider": provider, "out_trade_no": order.outTradeNo, "outcome": outcome])
            }
            return .qrCodeShown
        case .wechatQRCode, .alipayQRCode:
            if behavior == .pay || behavior == .fail {
                let provider = if case .wechatQRCode = parameters { "wechat" } else { "alipay" }
                _ = try await post("sandbox/pay", ["provider": provider, "out_trade_no": order.outTradeNo, "outcome": outcome])
            }
            return .qrCodeShown
        case .unionpay(let payment):
            return try await launch(payment, order: order)
        case .applePayRequest(let request):
            switch behavior {
            case .cancel: return .applePayDismissed
            case .reportSuccessWithoutPaying: return .applePayAuthorized(paymentJSON: Data(#"{"token":{"paymentData":{}}}"#.utf8))
            case .pay, .fail:
                let object = try? JSONDecoder().decode(ApplePayRequest.self, from: request)
                var mint = [
                    "amount": object?.total?.amount ?? order.amount, "currency": object?.currencyCode ?? order.currency,
                ]
                if let applicationData = object?.applicationData.flatMap({ Data(base64Encoded: $0) }) {
                    mint["application_data"] = applicationData.map { String(format: "%02x", $0) }.joined()
                }
                if behavior == .fail { mint["card"] = "4000000000000002" }  // the sandbox processor declines it
                return .applePayAuthorized(paymentJSON: try await post("sandbox/applepay/token", mint))
            }
        }
    }

    /// UnionPay's plugin, as ``UnionPaySandboxWallet`` plays it.
    private func launch(_ payment: UnionPayPayment, order: ClientOrder) async throws -> WalletOutcome {
        try await UnionPayLauncher(wallet: UnionPaySandboxWallet(sandboxURL: sandboxURL, behavior: behavior, session: session))
            .launch(payment)
    }

    /// The Alipay app's answer as the sandbox plays it.
    private struct AlipayAnswer: Decodable {
        let resultStatus: String?
        let memo: String?
        let result: String?
    }

    /// What the token minter needs of the server's Apple Pay request.
    private struct ApplePayRequest: Decodable {
        struct Total: Decodable { let amount: String? }
        let total: Total?
        let currencyCode: String?
        let applicationData: String?
    }

    /// The sandbox's answer to `path` with `body`.
    private func post(_ path: String, _ body: [String: String]) async throws -> Data {
        var request = URLRequest(url: sandboxURL.appendingPathComponent(path), timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw CashierClientError(
                code: "sandbox_error", message: "the sandbox refused \(path): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}
