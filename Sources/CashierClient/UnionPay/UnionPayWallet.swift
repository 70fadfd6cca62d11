public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// The seam in front of UnionPay's plugins: hand a `tn` to the payer, get the plugin's result.
///
/// `UnionPayApplePayWallet` (Apple Pay, `UPAPayPlugin`) and `UnionPayAppWallet` (云闪付,
/// `UPPaymentControl`) are the real ones, compiled where the SDKs are linked;
/// ``UnionPaySandboxWallet`` plays the payer against the Cashier sandbox; tests script their own.
public protocol UnionPayWallet: Sendable {
    func pay(_ payment: UnionPayPayment) async throws -> UnionPayResult
}

/// Launches a UnionPay payment: the server's `tn` to the wallet, its result back as a
/// ``WalletOutcome/unionPay(_:)`` for the server to confirm. As a ``PaymentLauncher`` it takes
/// ``WalletParameters/unionpay(_:)``; ``CashierClient/payWithUnionPay(orderID:clientSecret:method:wallet:wallets:timeout:)``
/// runs the whole flow with ``PayerWallets``.
///
/// ```swift
/// let result = try await cashier.payWithUnionPay(orderID: id, clientSecret: secret, method: .applePay,
///                                                wallet: UnionPayApplePayWallet(merchantID: "merchant.com.example", presenter: { vc }))
/// ```
public struct UnionPayLauncher: PaymentLauncher {
    public let wallet: any UnionPayWallet

    public init(wallet: any UnionPayWallet) {
        self.wallet = wallet
    }

    public func launch(_ payment: UnionPayPayment) async throws -> WalletOutcome {
        .unionPay(try await wallet.pay(payment))
    }

    /// - Throws: ``CashierClientError`` `invalid_request` for parameters of another wallet.
    public func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome {
        guard case .unionpay(let payment) = parameters else {
            throw CashierClientError(
                code: "invalid_request", message: "UnionPayLauncher launches UnionPay's tn (unionpay.applepay, unionpay.app)")
        }
        return try await launch(payment)
    }
}

/// Plays the payer in UnionPay's plugin against the Cashier sandbox (`POST /sandbox/pay` with the
/// `tn`), so the whole flow runs in tests on Linux: pays, cancels, declines — or reports success
/// without paying, which the server must not believe.
public struct UnionPaySandboxWallet: UnionPayWallet {
    public let sandboxURL: URL
    public let behavior: SandboxLauncher.Behavior
    private let session: URLSession

    public init(sandboxURL: URL, behavior: SandboxLauncher.Behavior = .pay, session: URLSession = .shared) {
        self.sandboxURL = sandboxURL
        self.behavior = behavior
        self.session = session
    }

    public func pay(_ payment: UnionPayPayment) async throws -> UnionPayResult {
        let outcome: String
        switch behavior {
        case .reportSuccessWithoutPaying: return UnionPayResult(status: .success)
        case .pay: outcome = "success"
        case .cancel: outcome = "cancel"
        case .fail: outcome = "fail"
        }
        var request = URLRequest(url: sandboxURL.appendingPathComponent("sandbox/pay"), timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["provider": "unionpay", "tn": payment.tn, "outcome": outcome])
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status),
            let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else {
            throw CashierClientError(code: "sandbox_error", message: "the sandbox refused the tn: \(String(decoding: data, as: UTF8.self))")
        }
        switch answer["pay_result"] as? String {
        case "success": return UnionPayResult(status: .success)
        case "cancel": return UnionPayResult(status: .cancel)
        default: return UnionPayResult(status: .failure, errorDescription: "余额不足[1000051]")
        }
    }
}
