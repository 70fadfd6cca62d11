import WeChatPay

/// `cashier-bench wechat`: v2 payment notifications parsed and verified per second, through
/// Cashier and through wechatpy 1.8.18's `parse_payment_result`, in the same run.
enum WeChatSuite {
    static func run(seconds: Int, report: (String) -> Void) throws {
        let merchant = WeChatPay.V2.Merchant(appID: "wx2421b1c4370ec43b", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        var fields: [(String, String)] = [
            ("appid", merchant.appID), ("attach", "支付测试"), ("bank_type", "CFT"), ("fee_type", "CNY"), ("is_subscribe", "Y"),
            ("mch_id", merchant.mchID), ("nonce_str", "5d2b6c2a8db53831f7eda20af46e531c"), ("openid", "oUpF8uMEb4qRXf22hE3X68TekukE"),
            ("out_trade_no", "C20261129112233K7Q2M9X4B1ZP"), ("result_code", "SUCCESS"), ("return_code", "SUCCESS"),
            ("sub_mch_id", "10000100"), ("time_end", "20140903131540"), ("total_fee", "5100"), ("cash_fee", "5100"),
            ("trade_type", "JSAPI"), ("transaction_id", "1004400740201409030005092168"),
        ]
        fields.append(("sign", merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
        let xml = WeChatPay.V2.XMLDocument(fields).xmlString
        let body = Array(xml.utf8)

        let peer = try PythonPeer()
        let input = [
            "appid": merchant.appID, "mch_id": merchant.mchID, "api_key": merchant.apiKey, "xml": xml, "seconds": String(seconds),
            "total_fee": "5100",
        ]
        let best = try Throughput.bestOfAlternating(
            baseline: { try peer.operationsPerSecond(script: "wechatpy_notify.py", input: input) },
            cashier: {
                try Throughput.operationsPerSecond(seconds: Double(seconds)) {
                    let notification = try WeChatPay.V2.PaymentNotification.verify(body, merchant: merchant)
                    precondition(notification.amount.minorUnits == 5100)
                }
            })
        report(Throughput.line("wechat-v2-notify", cashier: best.cashier, baseline: best.baseline, baselineName: "wechatpy"))
    }
}
