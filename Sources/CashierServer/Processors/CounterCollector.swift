import Cashier
import CashierStore

/// A provider that takes payment at the counter with the payer's payment code (WeChat Pay
/// `pay/micropay`, Alipay `alipay.trade.pay` with scene `bar_code`). The merchant server drives
/// the rest: query until the answer is final, and give up by ``PaymentAdapter/close(_:)``, which
/// for a counter payment reverses (WeChat Pay) or cancels (Alipay) it — closing it unpaid, or
/// returning money that arrived after the till gave up.
protocol CounterCollector: PaymentAdapter {
    /// - Throws: `PaymentError.invalidRequest` saying what the provider's codes look like.
    func checkPaymentCode(_ code: String) throws

    /// Collects the reserved attempt with the payer's code.
    /// - Throws: the provider's refusal (a spent code, too little balance) as `PaymentError`.
    func collect(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> CounterAnswer
}

/// What the provider answered at the counter.
enum CounterAnswer: Sendable, Equatable {
    /// Paid at once.
    case paid(amount: Money, transactionID: String?)
    /// The payer is confirming (a password, a tap on the phone): query.
    case waiting
    /// The provider could not say (a system error, no answer): query.
    case unknown(String)
}

extension CounterCollector {
    /// Gives up on a counter payment: asks first, so a paid one is recorded rather than
    /// reversed, then reverses or cancels it (`attempt`, repeated while the provider asks for it
    /// again, at most three times).
    func giveUp(_ payment: StoredPayment, attempt: () async throws -> Bool) async throws -> ProviderCloseResult {
        if case .paid(let amount, let transactionID) = try await query(payment) {
            return .paid(amount: amount, transactionID: transactionID)
        }
        for _ in 0..<3 {
            let again = try await attempt()
            if !again { return .closed }
        }
        throw PaymentError(.transport, provider: provider, "\(provider.rawValue) still asks for the reversal to be repeated")
    }
}
