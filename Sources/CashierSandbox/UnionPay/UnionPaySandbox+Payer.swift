import Cashier
import CashierHTTP
import CashierWeb
import Foundation
import UnionPay

extension UnionPaySandbox {
    /// What the payer did with a `tn`, as the plugins report it (`UPPaymentResultStatus`).
    public enum PayerOutcome: String, Sendable, Decodable {
        case success
        case cancel
        case fail
    }

    /// Acts as the payer in the plugin: pays (the consume succeeds and is notified), cancels
    /// (nothing changes), or fails (the card is declined; nothing is notified).
    /// - Returns: the answer `POST /sandbox/pay` gives — the plugin's `pay_result` and the
    ///   transaction's state — or `nil` for an unknown `tn`.
    @discardableResult
    public func pay(tn: String, outcome: PayerOutcome) -> [String: String]? {
        guard let key = tns[tn.trimmingCharacters(in: .whitespacesAndNewlines)], var transaction = transactions[key] else { return nil }
        var result = outcome.rawValue
        switch (outcome, transaction.state) {
        case (.success, .awaitingPayment):
            transaction.queryID = Self.digits(21)
            complete(&transaction)
            byQueryID[transaction.queryID] = key
            transactions[key] = transaction
            notify(transaction)
        case (.fail, .awaitingPayment):
            transaction.queryID = Self.digits(21)
            transaction.state = .failed(code: "51", message: "余额不足[1000051]")
            byQueryID[transaction.queryID] = key
            transactions[key] = transaction
        case (.success, _), (.fail, _):
            result = "fail"  // a tn is paid once
        case (.cancel, _):
            break
        }
        return [
            "provider": "unionpay", "tn": tn, "order_id": transaction.orderID, "pay_result": result,
            "state": Self.stateName(transactions[key]?.state ?? transaction.state),
        ]
    }

    static func stateName(_ state: State) -> String {
        switch state {
        case .awaitingPayment: "awaiting_payment"
        case .processing: "processing"
        case .succeeded: "succeeded"
        case .failed: "failed"
        }
    }

    /// `POST /sandbox/pay` with `{"provider": "unionpay", "tn": …, "outcome": …}`; `nil` when the
    /// body names another provider (the caller handles those).
    nonisolated static func payerAPI(_ request: HTTPServerRequest, sandbox: UnionPaySandbox) async -> HTTPServerResponse? {
        struct Pay: Decodable {
            let provider: String
            let tn: String?
            let outcome: PayerOutcome?
        }
        guard let pay = try? request.decodeJSON(Pay.self), pay.provider == "unionpay" else { return nil }
        guard let tn = pay.tn, let outcome = pay.outcome else {
            return SandboxControl.invalid(#"expected {"provider":"unionpay","tn":"…","outcome":"success"|"cancel"|"fail"}"#)
        }
        guard let answer = await sandbox.pay(tn: tn, outcome: outcome) else {
            return .error(status: 404, code: "order_not_found", message: "no unionpay tn \(tn.prefix(32)) in the sandbox")
        }
        return .json(answer)
    }

    // MARK: The payer page (standing in for the plugin)

    /// The page for a `tn`; `returnURL` (an http(s) page, e.g. the hosted checkout's) is offered
    /// once the payer is done, as the app regains control after the plugin.
    func payerPage(tn: String, action: String, returnURL: String? = nil) -> HTTPServerResponse {
        let back = Self.returnURL(returnURL)
        guard let key = tns[tn], let transaction = transactions[key] else {
            return HTMLPage(title: "订单不存在", body: "<main class=\"cashier\"><h1>订单不存在</h1><p>Unknown tn.</p></main>", status: 404).response()
        }
        guard transaction.state == .awaitingPayment else {
            return HTMLPage(
                title: "订单已处理",
                body: "<main class=\"cashier\"><h1>订单已处理</h1><p id=\"state\">\(Self.stateName(transaction.state))</p></main>"
            ).response()
        }
        let form = { (outcome: String, label: String, style: String) in
            """
            <form method="post" action="\(HTMLText.escape(action))"><input type="hidden" name="tn" value="\(HTMLText.escape(tn))">\
            <input type="hidden" name="outcome" value="\(outcome)">\
            \(back.map { "<input type=\"hidden\" name=\"return_url\" value=\"\(HTMLText.escape($0))\">" } ?? "")<button type="submit" id="\(outcome)" class="\(style)">\(label)</button></form>
            """
        }
        let amount = Money(minorUnits: transaction.amount, currency: .cny).decimalString
        return HTMLPage(
            title: "银联支付 (sandbox)",
            body: """
                <main class="cashier"><h1>银联支付 UnionPay (sandbox)</h1><p class="amount big" id="amount">¥\(amount)</p>\
                <p id="merchant" class="muted">\(HTMLText.escape(transaction.merchantID)) · \(HTMLText.escape(transaction.orderID))</p>\
                <p class="muted">Apple Pay / 云闪付 stand-in: test card 6259020040003629</p>\
                \(form("success", "确认付款 Pay", ""))\(form("fail", "卡片被拒 Decline", "secondary"))\(form("cancel", "取消 Cancel", "secondary"))</main>
                """
        ).response()
    }

    func payerAction(_ fields: [String: String]) -> HTTPServerResponse {
        guard let tn = fields["tn"], let outcome = fields["outcome"].flatMap(PayerOutcome.init(rawValue:)),
            let answer = pay(tn: tn, outcome: outcome)
        else {
            return HTMLPage(title: "订单不存在", body: "<main class=\"cashier\"><h1>订单不存在</h1></main>", status: 404).response()
        }
        let title = answer["pay_result"] == "success" ? "支付成功 Paid" : (answer["pay_result"] == "cancel" ? "已取消 Cancelled" : "支付失败 Failed")
        let back = Self.returnURL(fields["return_url"]).map {
            "<p><a id=\"return\" href=\"\(HTMLText.escape($0))\">返回商户 Back to the shop</a></p>"
        }
        return HTMLPage(
            title: title,
            body: "<main class=\"cashier\"><h1>\(title)</h1><p id=\"pay_result\">\(HTMLText.escape(answer["pay_result"] ?? ""))</p>"
                + (back ?? "") + "</main>"
        ).response()
    }

    /// An http(s) address to send the payer back to, or `nil`.
    static func returnURL(_ text: String?) -> String? {
        guard let text, let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else { return nil }
        return text
    }

    // MARK: The ledger

    /// Every consume with its undos and refunds, as UnionPay's books would show them.
    public func ledger() -> [SandboxLedgerEntry] {
        transactions.values.filter { $0.kind == .consume }.sorted { $0.orderID < $1.orderID }.map { consume in
            let reversals = transactions.values.filter { !consume.queryID.isEmpty && $0.originalQueryID == consume.queryID }
                .sorted { $0.orderID < $1.orderID }
            return SandboxLedgerEntry(
                provider: "unionpay", out_trade_no: consume.orderID, state: Self.stateName(consume.state),
                paid: consume.state == .succeeded && !reversals.contains { $0.kind == .undo && $0.state == .succeeded },
                amount_minor: consume.amount, currency: "CNY", transaction_id: consume.state == .succeeded ? consume.queryID : nil,
                refunds: reversals.map {
                    .init(
                        out_refund_no: $0.orderID, amount_minor: $0.amount,
                        status: $0.state == .succeeded ? "SUCCESS" : ($0.state == .processing ? "PROCESSING" : "FAILED"))
                }, sent: consume.sent.merging(["txnTime": consume.transactionTime]) { $1 })
        }
    }

    /// A consume's `tn` and identifiers by its `orderId`, for tests and the payer API.
    public func consume(orderID: String) -> (tn: String, transactionTime: String, queryID: String?)? {
        guard let consume = transactions.values.first(where: { $0.kind == .consume && $0.orderID == orderID }), let tn = consume.tn else {
            return nil
        }
        return (tn, consume.transactionTime, consume.queryID.isEmpty ? nil : consume.queryID)
    }
}
