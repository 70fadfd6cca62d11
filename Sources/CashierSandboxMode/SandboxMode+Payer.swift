public import Cashier
public import CashierServer
import Foundation

extension SandboxMode: SandboxPayer {
    /// Pays through the sandbox's payer API (`POST /sandbox/pay`), which then notifies the
    /// server as WeChat Pay or Alipay would.
    public func pay(provider: PaymentProvider, outTradeNo: String) async throws -> Bool {
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
