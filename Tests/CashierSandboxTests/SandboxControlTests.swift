import Cashier
import CashierSandbox
import Foundation
import Testing

/// The sandbox's control routes that take a JSON object answer any other body — not JSON, JSON
/// but not an object, an object without what the route needs — with `400 invalid_request` whose
/// message shows the body expected.
@Suite struct SandboxControlTests {
    static let routes = [
        "/sandbox/refund_outcome", "/sandbox/faults", "/sandbox/wechat/console_refund", "/sandbox/alipay/console_refund",
        "/sandbox/adyen/webhook", "/sandbox/adyen/capture_outcome", "/sandbox/adyen/dispute", "/sandbox/adyen/decide",
        "/sandbox/adyen/expire", "/sandbox/adyen/recapture", "/sandbox/adyen/customer_area", "/sandbox/stripe/webhook",
        "/sandbox/stripe/decide", "/sandbox/stripe/payment_methods/pm_x/decline", "/sandbox/adyen/stored_payment_methods/X/decline",
        "/sandbox/wechat/contracts/sign", "/sandbox/wechat/contracts/unsign", "/sandbox/wechat/contracts/balance",
    ]

    func post(_ base: URL, _ path: String, _ body: String) async throws -> (status: Int, code: String?, message: String?) {
        let response = try await URLSessionTransport().send(
            HTTPRequest(method: "POST", url: base.appendingPathComponent(String(path.dropFirst())), body: Data(body.utf8)))
        let error = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["error"] as? [String: Any]
        return (response.status, error?["code"] as? String, error?["message"] as? String)
    }

    @Test func aBodyThatIsNotTheExpectedObjectIsRefusedWithTheShapeExpected() async throws {
        let sandbox = SandboxServer(wechatMerchants: [])
        try sandbox.start()
        for path in Self.routes {
            for body in ["not json", "[1, 2]", "\"a string\"", "{}"] {
                let answer = try await post(sandbox.baseURL, path, body)
                #expect(answer.status == 400, "\(path) \(body)")
                #expect(answer.code == "invalid_request", "\(path) \(body)")
                #expect(answer.message?.hasPrefix("expected {") == true, "\(path) \(body): \(answer.message ?? "")")
            }
        }
        let fault = try await post(sandbox.baseURL, "/sandbox/faults", #"{"mode":"nonsense"}"#)
        #expect(fault.status == 400 && fault.code == "invalid_request")
        await sandbox.stop()
    }
}
