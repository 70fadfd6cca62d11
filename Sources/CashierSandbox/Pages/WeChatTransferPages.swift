import Cashier
import CashierHTTP
import CashierWeb
import Foundation

/// The payee's side of WeChat Pay merchant transfers (商家转账) in the sandbox, beside `/sandbox/pay`:
///
/// - `POST /sandbox/wechat/transfer_bills/confirm` `{out_bill_no, package_info, mchid, appid,
///   outcome}` (`confirm`, `fail`, or `expire`: never confirmed, closed as its 24 hours would) →
///   the bill: what `wx.requestMerchantTransfer` leads to, for tools.
/// - `GET /sandbox/wechat/transfer_bills/confirm?out_bill_no=…&package_info=…&mchid=…&appid=…`:
///   the same as the page a payee sees — the amount and remark, and buttons to confirm, to have
///   WeChat fail it, or to let it expire.
struct WeChatTransferPages: Sendable {
    let wechatV3: WeChatV3Sandbox

    func register(on router: inout Router) {
        router.add("POST", "/sandbox/wechat/transfer_bills/confirm") { request, _ in
            if request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true {
                return await pageAction(request.formFields)
            }
            struct Confirm: Decodable {
                let out_bill_no: String
                let package_info: String
                let mchid: String
                let appid: String
                let outcome: WeChatV3Sandbox.TransferOutcome
            }
            guard let confirm = try? request.decodeJSON(Confirm.self) else {
                return SandboxControl.invalid(
                    #"expected {"out_bill_no":"…","package_info":"…","mchid":"…","appid":"…","outcome":"confirm"|"fail"|"expire"}"#)
            }
            do {
                return .json(
                    try await wechatV3.confirmTransfer(
                        outBillNo: confirm.out_bill_no, packageInfo: confirm.package_info, mchID: confirm.mchid, appID: confirm.appid,
                        outcome: confirm.outcome))
            } catch let refusal as WeChatV3Sandbox.PayerRefusal {
                return .error(status: refusal.status, code: refusal.code, message: refusal.message)
            } catch {
                return .error(status: 500, code: "internal", message: "the transfer could not be confirmed")
            }
        }
        router.add("GET", "/sandbox/wechat/transfer_bills/confirm") { request, _ in
            await page(
                Self.fields(from: { request.queryValue($0) }), message: nil)
        }
    }

    /// The bill's four identifying fields, read from a query or a form.
    static func fields(from value: (String) -> String?) -> [String: String] {
        var fields: [String: String] = [:]
        for name in ["out_bill_no", "package_info", "mchid", "appid"] { fields[name] = value(name) ?? "" }
        return fields
    }

    private func pageAction(_ form: [String: String]) async -> HTTPServerResponse {
        let fields = Self.fields(from: { form[$0] })
        guard let outcome = WeChatV3Sandbox.TransferOutcome(rawValue: form["outcome"] ?? "") else {
            return await page(fields, message: "choose confirm, fail or expire")
        }
        do {
            _ = try await wechatV3.confirmTransfer(
                outBillNo: fields["out_bill_no"] ?? "", packageInfo: fields["package_info"] ?? "", mchID: fields["mchid"] ?? "",
                appID: fields["appid"] ?? "", outcome: outcome)
            return await page(fields, message: nil)
        } catch let refusal as WeChatV3Sandbox.PayerRefusal {
            return await page(fields, message: refusal.message)
        } catch {
            return await page(fields, message: "not sent")
        }
    }

    private func page(_ fields: [String: String], message: String?) async -> HTTPServerResponse {
        guard
            let bill = await wechatV3.transferBills().first(where: {
                $0.out_bill_no == fields["out_bill_no"] && $0.mchid == fields["mchid"] && $0.appid == fields["appid"]
            })
        else {
            return SandboxPages.notice(
                status: 404, title: "没有这笔转账 No such transfer",
                "No transfer bill \(fields["out_bill_no"] ?? "") of merchant \(fields["mchid"] ?? "").")
        }
        let hidden = ["out_bill_no", "package_info", "mchid", "appid"].map {
            "<input type=\"hidden\" name=\"\($0)\" value=\"\(HTMLText.escape(fields[$0] ?? ""))\">"
        }.joined()
        let waiting = bill.state == "WAIT_USER_CONFIRM"
        let actions =
            waiting
            ? """
            <form method="post" action="/sandbox/wechat/transfer_bills/confirm">\(hidden)\
            <button type="submit" name="outcome" value="confirm" id="confirm">确认收款 Confirm</button> \
            <button type="submit" name="outcome" value="fail" id="fail" class="secondary">转账失败 WeChat fails it</button> \
            <button type="submit" name="outcome" value="expire" id="expire" class="secondary">不确认 Let it expire (24 h)</button></form>
            """
            : ""
        let state =
            switch bill.state {
            case "SUCCESS": "已收款 Received"
            case "WAIT_USER_CONFIRM": "待确认收款 Waiting for you to confirm"
            default: HTMLText.escape(bill.state + (bill.fail_reason.map { " (\($0))" } ?? ""))
            }
        return HTMLPage(
            title: "确认收款 Confirm a transfer (sandbox)",
            body: """
                <main class="cashier"><h1>商家转账 Transfer from a merchant</h1>\
                <p class="amount big" id="amount">¥\(HTMLText.escape(Money(minorUnits: bill.transfer_amount, currency: .cny).decimalString))</p>\
                <p class="muted" id="merchant">商户 \(HTMLText.escape(bill.mchid)) · <code>\(HTMLText.escape(bill.out_bill_no))</code></p>\
                <p id="state">\(state)</p>\(message.map { "<p class=\"card\" id=\"message\">\(HTMLText.escape($0))</p>" } ?? "")\(actions)</main>
                """
        ).response()
    }
}
