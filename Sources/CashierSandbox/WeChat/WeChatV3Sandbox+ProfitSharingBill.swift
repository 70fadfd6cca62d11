import Cashier
import CashierHTTP
import Foundation
import WeChatPay

/// The profit-sharing bill (分账账单, `GET /v3/profitsharing/bills`): the merchant's shares that
/// ended `SUCCESS` and returns that ended `SUCCESS` on a day (Beijing time, by when they
/// finished), and what unfreezes gave back to it, as ``WeChatPay/V3/ProfitSharingBill`` writes
/// them (its assumed columns). Like WeChat, the answer is a signed listing (SHA1 of the file as
/// served, gzipped for `tar_type=GZIP`) whose `download_url` works once; a day with nothing is
/// `400 NO_STATEMENT_EXIST` (要下载的账单不存在), as for the trade and fund-flow bills.
extension WeChatV3Sandbox {
    func profitSharingBill(_ request: HTTPServerRequest, _ merchant: Merchant, prefix: String) -> HTTPServerResponse {
        guard let date = request.queryValue("bill_date"), date.count == 10 else { return error(400, "PARAM_ERROR", "bill_date格式错误") }
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let time = BeijingTime.formatter("yyyy-MM-dd HH:mm:ss")
        var dated: [(Date, WeChatPay.V3.ProfitSharingBillLine)] = []
        for order in sharing.orders.values where order.mchID == merchant.mchID {
            for share in order.shares where share.result == "SUCCESS" {
                guard let finished = share.finished, day.string(from: finished) == date else { continue }
                let own = order.unfreeze || (share.type == "MERCHANT_ID" && share.account == order.mchID)
                dated.append(
                    (
                        finished,
                        .init(
                            time: time.string(from: finished), initiator: order.mchID, payer: order.mchID,
                            transactionID: order.transactionID, orderID: order.orderID, outOrderNo: order.outOrderNo, outReturnNo: nil,
                            kind: own ? .unfreeze : .share, receiverType: share.type, receiverAccount: share.account,
                            amount: share.amount, state: share.result, description: share.description)
                    ))
            }
        }
        for entry in sharing.returns.values where entry.mchID == merchant.mchID && entry.result == "SUCCESS" {
            guard let finished = entry.finished, day.string(from: finished) == date else { continue }
            let order = sharing.orders[WeChatProfitSharingDesk.key(entry.mchID, entry.outOrderNo)]
            dated.append(
                (
                    finished,
                    .init(
                        time: time.string(from: finished), initiator: entry.mchID, payer: entry.mchID,
                        transactionID: order?.transactionID ?? "", orderID: entry.returnID, outOrderNo: entry.outOrderNo,
                        outReturnNo: entry.outReturnNo, kind: .return, receiverType: "MERCHANT_ID", receiverAccount: entry.returnMchID,
                        amount: entry.amount, state: entry.result, description: entry.description)
                ))
        }
        guard !dated.isEmpty else { return error(400, "NO_STATEMENT_EXIST", "要下载的账单不存在") }
        let lines = dated.sorted {
            ($0.0, $0.1.outOrderNo, $0.1.orderID, $0.1.receiverAccount) < ($1.0, $1.1.outOrderNo, $1.1.orderID, $1.1.receiverAccount)
        }.map(\.1)
        return billListing(WeChatPay.V3.ProfitSharingBill(lines: lines).text, request, prefix: prefix)
    }
}
