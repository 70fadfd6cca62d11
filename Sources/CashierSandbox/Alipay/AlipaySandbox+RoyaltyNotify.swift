import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
public import Foundation

/// Async settles finishing on the sandbox clock, their `alipay.trade.order.settle.notify` to the
/// app's application gateway, and the test hooks:
///
/// - `POST /sandbox/alipay/gateway {"app_id":"…","url":"https://…"}` sets an app's application
///   gateway (``setApplicationGateway(appID:url:)``);
/// - `POST /sandbox/alipay/royalty/advance {"seconds":3}` moves the royalty clock on and finishes
///   the async settles that are due (``advanceRoyaltyClock(by:)``);
/// - `POST /sandbox/alipay/royalty/delay {"seconds":600}` sets how long async settles stay `PROCESSING`;
/// - `POST /sandbox/alipay/royalty/fail {"account":"2088…"}` makes async shares to that receiver fail.
extension AlipaySandbox {
    /// Sets where `alipay.trade.order.settle.notify` for `appID` is posted (`nil`: nowhere).
    public func setApplicationGateway(appID: String, url: String?) {
        royalty.gateways[appID] = url
    }

    /// Moves the royalty clock on by `seconds` and finishes the async settles now due (and notifies them).
    public func advanceRoyaltyClock(by seconds: TimeInterval) {
        royalty.offset += seconds
        sweepRoyalty()
    }

    /// Sets the clock the royalty desk reads (before ``advanceRoyaltyClock(by:)``'s offset).
    public func setRoyaltyClock(_ clock: @escaping @Sendable () -> Date) {
        royalty.base = clock
    }

    /// How long an async settle stays `PROCESSING` (sandbox clock; 2 s unless set).
    public func setRoyaltyAsyncDelay(_ seconds: TimeInterval) {
        royalty.asyncDelay = seconds
    }

    /// Makes async shares to `account` fail (`true`) or succeed again.
    public func setRoyaltyFailure(account: String, failing: Bool = true) {
        if failing { royalty.failingAccounts.insert(account) } else { royalty.failingAccounts.remove(account) }
    }

    /// The most that may go to others, in percent of a trade's total (30 unless set).
    public func setRoyaltyMaxRatio(percent: Int64) {
        royalty.maxRatioPercent = percent
    }

    /// The accounts bound to `appID`, as `type:account`, in the order bound.
    public func royaltyRelations(appID: String) -> [String] {
        (royalty.relations[appID] ?? []).map { "\($0.type):\($0.account)" }
    }

    /// The settle requests of a trade, in order.
    public func royaltySettles(outTradeNo: String) -> [SandboxRoyaltySettle] {
        (royalty.books[outTradeNo]?.settles ?? []).compactMap { royalty.settles[$0] }.map { settle in
            SandboxRoyaltySettle(
                app_id: settle.appID, out_trade_no: settle.outTradeNo, trade_no: settle.tradeNo, out_request_no: settle.outRequestNo,
                settle_no: settle.settleNo, royalty_mode: settle.mode, royalty_finish: settle.finish,
                details: settle.details.map {
                    .init(trans_in: $0.transIn, amount_minor: $0.amount, state: $0.state, error_code: $0.errorCode)
                })
        }
    }

    /// What a trade still holds for settling, in fen (`nil` for an unknown trade).
    public func unsettledAmount(outTradeNo: String) -> Int64? {
        trades[outTradeNo].map { unsettled(outTradeNo, $0) }
    }

    /// Decides every async settle whose time has come and notifies each.
    func sweepRoyalty() {
        let now = royalty.now()
        for (key, var settle) in royalty.settles {
            guard let due = settle.decideAt, due <= now else { continue }
            for index in settle.details.indices where settle.details[index].state == "PROCESSING" {
                if royalty.failingAccounts.contains(settle.details[index].transIn) {
                    settle.details[index].state = "FAIL"
                    settle.details[index].errorCode = "TXN_RESULT_ACCOUNT_STATUS_NOT_VALID"
                    settle.details[index].errorDescription = "分账收入方账户状态异常"
                } else {
                    settle.details[index].state = "SUCCESS"
                }
                settle.details[index].executed = now
            }
            settle.decideAt = nil
            royalty.settles[key] = settle
            if let url = royalty.gateways[settle.appID] { notifySettle(settle, url: url) }
        }
    }

    /// Posts `alipay.trade.order.settle.notify`: signed over every parameter but `sign`, sorted,
    /// `sign_type` kept (as the research has it; unverified against a live gateway).
    func notifySettle(_ settle: AlipayRoyaltyDesk.Settle, url: String) {
        let biz = (try? JSONSerialization.data(withJSONObject: Self.settleFields(settle), options: [.sortedKeys])) ?? Data()
        var fields: [String: String] = [
            "msg_method": Alipay.SettleNotification.method, "notify_id": SecureRandom.alphanumeric(count: 32),
            "utc_timestamp": String(Int64(royalty.now().timeIntervalSince1970 * 1000)), "app_id": settle.appID, "version": "1.1",
            "charset": "utf-8", "biz_content": String(decoding: biz, as: UTF8.self), "sign_type": "RSA2",
        ]
        fields["sign"] = (try? alipayKey.signature(for: Alipay.Signer.content(fields), scheme: .insecurePKCS1v1_5SHA256)).map {
            Base64.encode($0)
        }
        let body = Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        delivery.deliver(
            key: settle.settleNo, url: url, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded;charset=utf-8",
            schedule: Self.messageSchedule
        ) { response in
            response.status == 200
                && String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "success"
        }
    }

    nonisolated func registerRoyalty(on router: inout Router) {
        router.add("POST", "/sandbox/alipay/gateway") { request, _ in
            guard let object = SandboxControl.object(request), let appID = object["app_id"] as? String else {
                return SandboxControl.invalid(#"expected {"app_id":"…","url":"https://…"}"#)
            }
            let url = object["url"] as? String
            await self.setApplicationGateway(appID: appID, url: url)
            return .json(["app_id": appID, "url": url ?? ""])
        }
        router.add("POST", "/sandbox/alipay/royalty/advance") { request, _ in
            guard let object = SandboxControl.object(request), let seconds = (object["seconds"] as? NSNumber)?.doubleValue, seconds >= 0
            else { return SandboxControl.invalid(#"expected {"seconds":3}"#) }
            await self.advanceRoyaltyClock(by: seconds)
            return .json(["advanced": String(seconds)])
        }
        router.add("POST", "/sandbox/alipay/royalty/delay") { request, _ in
            guard let object = SandboxControl.object(request), let seconds = (object["seconds"] as? NSNumber)?.doubleValue, seconds >= 0
            else { return SandboxControl.invalid(#"expected {"seconds":600}"#) }
            await self.setRoyaltyAsyncDelay(seconds)
            return .json(["delay": String(seconds)])
        }
        router.add("POST", "/sandbox/alipay/royalty/fail") { request, _ in
            guard let object = SandboxControl.object(request), let account = object["account"] as? String else {
                return SandboxControl.invalid(#"expected {"account":"2088…","failing":true}"#)
            }
            await self.setRoyaltyFailure(account: account, failing: (object["failing"] as? Bool) ?? true)
            return .json(["account": account])
        }
    }
}
