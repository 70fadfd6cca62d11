public import Cashier
public import CashierServer
import Foundation

extension SandboxMode: SandboxPayer {
    /// Pays through the sandbox's payer API (`POST /sandbox/pay`), which then notifies the
    /// server as WeChat Pay or Alipay would; a UnionPay consume is paid by its `tn`.
    public func pay(provider: PaymentProvider, outTradeNo: String) async throws -> Bool {
        if provider == .unionpay {
            guard let consume = await sandbox.unionpay.consume(orderID: outTradeNo) else { return false }
            return await sandbox.unionpay.pay(tn: consume.tn, outcome: .success)?["pay_result"] == "success"
        }
        let wallet = provider == .alipay ? "alipay" : "wechat"
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        let body = try JSONSerialization.data(withJSONObject: ["provider": wallet, "out_trade_no": outTradeNo, "outcome": "success"])
        let response = try await payerTransport.send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/pay"), headers: headers, body: body))
        return (200..<300).contains(response.status)
    }
}
