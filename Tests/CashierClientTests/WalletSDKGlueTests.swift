#if canImport(CashierClientPlatformCheck)
    import AlipaySDK
    import Cashier
    import CashierClient
    import CashierClientPlatformCheck
    import Foundation
    import Testing
    import WechatOpenSDK

    /// The WeChat and Alipay launchers the README shows, compiled on Linux against declarations of
    /// WechatOpenSDK and AlipaySDK (Tests/PlatformStubs) and driven as the SDKs drive them, against a
    /// real merchant server and the sandbox: the server's word decides, never the wallet's.
    @Suite(.serialized) struct WalletSDKGlueTests {
        typealias World = CashierClientTests.World

        func payInSandbox(_ world: World, _ body: [String: Any]) async throws -> [String: Any] {
            let response = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: world.sandbox.baseURL.appendingPathComponent("sandbox/pay"),
                    body: try JSONSerialization.data(withJSONObject: body)))
            return try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
        }

        @Test(.timeLimit(.minutes(3))) func weChatPaysThroughTheSDKAndTheServerConfirms() async throws {
            let world = try await World()
            let order = try await world.order("18.00")
            let number = try await world.client.order(id: order.id, clientSecret: order.secret).outTradeNo
            let sandbox = world.sandbox.baseURL
            WXApi.onSend = { request in
                guard let pay = request as? PayReq, !pay.prepayId.isEmpty, !pay.sign.isEmpty else { return false }
                Task {
                    // The payer pays in WeChat; WeChat reopens the app and the SDK calls onResp.
                    _ = try? await URLSessionTransport().send(
                        HTTPRequest(
                            method: "POST", url: sandbox.appendingPathComponent("sandbox/pay"),
                            body: try JSONSerialization.data(withJSONObject: [
                                "provider": "wechat", "out_trade_no": number, "outcome": "success",
                            ])))
                    _ = WeChatResults.shared.handleOpen(URL(string: "wx1234://pay/?returnKey=&ret=0")!)
                }
                return true
            }
            defer { WXApi.onSend = nil }
            let paid = try await world.client.pay(
                orderID: order.id, clientSecret: order.secret, method: .wechatApp, launcher: WeChatLauncher())
            guard case .paid(let confirmed) = paid else {
                Issue.record("ended as \(paid)")
                return
            }
            #expect(confirmed.amountMinor == 1800)
            // WeChat says success but nothing was paid: the server's word stands.
            let unpaid = try await world.order("5.00")
            WXApi.onSend = { _ in
                Task { _ = WeChatResults.shared.handleOpen(URL(string: "wx1234://pay/?ret=0")!) }
                return true
            }
            let claimed = try await world.client.pay(
                orderID: unpaid.id, clientSecret: unpaid.secret, method: .wechatApp, launcher: WeChatLauncher(), timeout: .seconds(2))
            #expect({ if case .notPaid = claimed { true } else { false } }(), "\(claimed)")
            // WeChat is not installed: a failure the app can show, not a hang.
            WXApi.onSend = nil
            let missing = try await WeChatLauncher().launch(
                try await world.client.startPayment(orderID: unpaid.id, clientSecret: unpaid.secret, method: .wechatApp),
                for: try await world.client.order(id: unpaid.id, clientSecret: unpaid.secret))
            #expect(missing == .wechat(errCode: -3, errStr: "WeChat could not be opened: is it installed?"))
            await world.stop()
        }

        @Test(.timeLimit(.minutes(3))) func alipayPaysThroughTheSDKAndTheServerConfirms() async throws {
            let world = try await World()
            let order = try await world.order("9.90")
            let sandbox = world.sandbox.baseURL
            AlipaySDK.onPay = { orderString, callback in
                Task {
                    let response = try? await URLSessionTransport().send(
                        HTTPRequest(
                            method: "POST", url: sandbox.appendingPathComponent("sandbox/pay"),
                            body: try JSONSerialization.data(withJSONObject: [
                                "provider": "alipay", "order_string": orderString, "outcome": "success",
                            ])))
                    let answer = (response.flatMap { try? JSONSerialization.jsonObject(with: $0.body) } as? [String: Any]) ?? [:]
                    callback([
                        "resultStatus": answer["resultStatus"] as? String ?? "6004", "memo": "",
                        "result": answer["result"] as? String ?? "",
                    ])
                }
            }
            defer { AlipaySDK.onPay = nil }
            let paid = try await world.client.pay(
                orderID: order.id, clientSecret: order.secret, method: .alipayApp, launcher: AlipayLauncher(scheme: "cashierdemo"))
            guard case .paid(let confirmed) = paid else {
                Issue.record("ended as \(paid)")
                return
            }
            #expect(confirmed.amountMinor == 990)
            // The payer cancels in Alipay: nothing is asked of the server.
            AlipaySDK.onPay = { _, callback in callback(["resultStatus": "6001", "memo": "用户中途取消"]) }
            let other = try await world.order("1.00")
            let cancelled = try await world.client.pay(
                orderID: other.id, clientSecret: other.secret, method: .alipayApp, launcher: AlipayLauncher(scheme: "cashierdemo"))
            #expect(cancelled == .cancelled)
            #expect(AlipayLauncher.outcome(nil) == .alipay(resultStatus: "6004"))
            let wrong = await #expect(throws: CashierClientError.self) {
                _ = try await AlipayLauncher(scheme: "x").launch(
                    .wechatQRCode("weixin://x"), for: try await world.client.order(id: other.id, clientSecret: other.secret))
            }
            #expect(wrong?.code == "invalid_method")
            await world.stop()
        }
    }
#endif
