import Cashier
import CashierCLI
import CashierCrypto
import Foundation

/// `cashier-sandbox demo`: the end-to-end walk-through of what exists so far.
///
/// It prices an order, walks it through the payment state machine, exercises the cryptography
/// every provider needs, and takes WeChat Pay v2 and v3 orders through the in-process sandbox
/// (place, pay as the payer, receive and verify the notification, query, refund), checking each
/// result; then the merchant server takes one order through every payment method and prints the
/// orders' final states.
enum DemoCommand {
    static let command = Command(
        name: "demo",
        summary: "Run the end-to-end demo and print a table of results (exit 0 when every step passes).",
        discussion: "Everything runs in process and offline."
    ) { _, io in
        var steps: [(String, String, Bool)] = []
        func step(_ name: String, _ body: () async throws -> (String, Bool)) async {
            do {
                let (detail, ok) = try await body()
                steps.append((name, detail, ok))
            } catch {
                steps.append((name, "\(error)", false))
            }
        }

        let yuan = { (text: String) in try Money(decimal: text, currency: .cny) }
        var order: Order?
        await step("price an order") {
            let summary = try PaymentSummary(
                items: [
                    LineItem(label: "Latte", unitAmount: yuan("28.00"), quantity: 2),
                    LineItem(label: "Coupon", unitAmount: yuan("-5.00")),
                ], totalLabel: "Example Coffee Co.")
            order = try Order(summary: summary, description: "2 lattes")
            return ("2 × 28.00 − 5.00 = \(summary.total)", summary.total == (try yuan("51.00")))
        }
        await step("trade number") {
            let number = order?.outTradeNo ?? ""
            return (number, TradeNumber.isValid(number, for: .wechat) && TradeNumber.isValid(number, for: .alipay))
        }
        await step("state machine") {
            guard var order else { return ("no order", false) }
            var trail = [order.status.rawValue]
            for event in [PaymentEvent.paymentStarted, .paymentSucceeded, .partiallyRefunded, .refunded] {
                trail.append(try order.apply(event).to.rawValue)
            }
            let refusedDoublePay = (try? order.apply(.paymentSucceeded)) == nil
            return (trail.joined(separator: " → "), order.status == .refunded && refusedDoublePay)
        }
        await step("HMAC-SHA256 (RFC 4231 #2)") {
            let mac = Hex.encode(HMACKey(key: Array("Jefe".utf8)).authenticationCode(for: "what do ya want for nothing?"))
            return (String(mac.prefix(16)) + "…", mac == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        }
        await step("RSA-2048 SHA256withRSA") {
            let key = try await OwnThread.run { try RSAPrivateKey(generatingKeySizeInBits: 2048) }
            let content = "out_trade_no=\(order?.outTradeNo ?? "")&total_amount=51.00"
            let signature = try key.signature(for: content, scheme: .insecurePKCS1v1_5SHA256)
            let genuine = key.publicKey.isValidSignature(signature, for: Array(content.utf8), scheme: .insecurePKCS1v1_5SHA256)
            let forged = key.publicKey.isValidSignature(
                signature, for: Array(content.replacingOccurrences(of: "51.00", with: "0.01").utf8), scheme: .insecurePKCS1v1_5SHA256)
            return ("signed; tampered amount rejected", genuine && !forged)
        }
        await step("AES-256-GCM") {
            let key = try AESGCMKey(SecureRandom.bytes(count: 32))
            let nonce = SecureRandom.bytes(count: 12)
            let box = try key.seal(Array(#"{"trade_state":"SUCCESS"}"#.utf8), iv: nonce, authenticating: Array("transaction".utf8))
            let opened = try key.open(box, iv: nonce, authenticating: Array("transaction".utf8))
            let tampered = (try? key.open(box, iv: nonce, authenticating: Array("refund".utf8))) == nil
            return ("sealed and opened; wrong associated data rejected", opened.count == 25 && tampered)
        }
        await step("P-256 ECDH") {
            let merchant = try P256PrivateKey()
            let ephemeral = try P256PrivateKey()
            let a = try merchant.sharedSecret(with: ephemeral.publicKey)
            let b = try ephemeral.sharedSecret(with: merchant.publicKey)
            return ("both sides agree on a 32-byte secret", a == b && a.count == 32)
        }

        await WeChatDemo.run(step)
        await AlipayDemo.run(step)
        await ApplePayDemo.run(step)
        let orders = await ServerDemo.run(step)

        let width = steps.map(\.0.count).max() ?? 0
        io.write("Cashier \(CashierVersion.current) demo\n\n")
        for (name, detail, ok) in steps {
            io.write((ok ? "  ok    " : "  FAIL  ") + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + detail + "\n")
        }
        if !orders.isEmpty {
            let methodWidth = orders.map(\.method.count).max() ?? 0
            io.write("\nOrders through the merchant server (final state from GET /v1/orders/{id})\n\n")
            io.write(
                "  " + "METHOD".padding(toLength: methodWidth + 2, withPad: " ", startingAt: 0)
                    + "AMOUNT    STATUS               EXPECTED             TIME\n")
            for row in orders {
                io.write(
                    "  " + row.method.padding(toLength: methodWidth + 2, withPad: " ", startingAt: 0)
                        + (row.amount + " CNY").padding(toLength: 10, withPad: " ", startingAt: 0)
                        + row.status.padding(toLength: 21, withPad: " ", startingAt: 0)
                        + row.expected.padding(toLength: 21, withPad: " ", startingAt: 0) + "\(row.milliseconds) ms"
                        + (row.status == row.expected ? "" : "   ← WRONG") + "\n")
            }
            io.write("\nEach order's hosted checkout page (checkout_url; the demo's server has stopped — run\n")
            io.write("`cashier-sandbox serve` to open them live, where each new order's link is printed):\n\n")
            for row in orders {
                io.write("  " + row.method.padding(toLength: methodWidth + 2, withPad: " ", startingAt: 0) + row.checkout + "\n")
            }
        }
        let failures = steps.filter { !$0.2 }.count
        io.write("\n\(steps.count - failures) passed, \(failures) failed\n")
        return failures == 0 ? 0 : 1
    }
}
