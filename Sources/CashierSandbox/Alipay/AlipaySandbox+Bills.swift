import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

extension AlipaySandbox {
    // MARK: Bills

    /// `alipay.data.dataservice.bill.downloadurl.query`: a 30-second link to the day's trade bill.
    func billLink(_ biz: [String: Any], host: String) -> [String: Any] {
        let type = biz["bill_type"] as? String ?? ""
        guard type == "trade" || type == "signcustomer", let date = biz["bill_date"] as? String,
            let day = BeijingTime.formatter("yyyy-MM-dd").date(from: date), BeijingTime.formatter("yyyy-MM-dd").string(from: day) == date
        else {
            return failure(
                "40004", "Business Failed", "isp.bill_not_exist", "账单不存在 (the sandbox keeps trade and signcustomer bills by yyyy-MM-dd)")
        }
        guard day <= Date() else { return failure("40004", "Business Failed", "isp.bill_not_exist", "账单不存在") }
        let now = ContinuousClock.now
        billLinks = billLinks.filter { $0.value.expires > now }
        let token = SecureRandom.alphanumeric(count: 32)
        billLinks[token] = (date, type, now.advanced(by: .seconds(30)))
        return success(["bill_download_url": "http://\(host)/alipay/bill?bill_type=\(type)&bill_date=\(date)&token=\(token)"])
    }

    /// The day's trade bill: every payment and refund whose time falls on it (Beijing time), in GBK.
    func bill(date: String) -> Alipay.Bill {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let time = BeijingTime.formatter("yyyy-MM-dd HH:mm:ss")
        var rows: [Alipay.Bill.Row] = []
        for (number, trade) in trades.sorted(by: { $0.key < $1.key }) {
            guard let paid = trade.paid, !trade.cancelledAfterPayment else { continue }
            if day.string(from: paid) == date {
                rows.append(
                    .init(
                        tradeNo: trade.tradeNo, outTradeNo: number, kind: .trade, subject: trade.subject,
                        created: time.string(from: trade.created), finished: time.string(from: paid), amount: trade.total,
                        fee: Money(minorUnits: SandboxFees.fee(trade.total.minorUnits), currency: .cny)))
            }
            for (requestNo, refund) in trade.refunds.sorted(by: { $0.key < $1.key })
            where day.string(from: refund.date) == date && !refund.failed {
                rows.append(
                    .init(
                        tradeNo: trade.tradeNo, outTradeNo: number, kind: .refund, subject: trade.subject,
                        created: time.string(from: trade.created), finished: time.string(from: refund.date),
                        amount: Money(minorUnits: -refund.amount.minorUnits, currency: .cny), refundRequestNo: requestNo,
                        fee: Money(minorUnits: -SandboxFees.fee(refund.amount.minorUnits), currency: .cny)))
            }
        }
        return Alipay.Bill(account: sellerID + "0156", rows: rows)
    }

    /// The day's account statement (账务明细): each payment in with its service fee out, each
    /// refund out with its fee back, and the balance after each.
    func fundFlow(date: String) -> Alipay.FundFlowBill {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let time = BeijingTime.formatter("yyyy-MM-dd HH:mm:ss")
        var movements: [(at: Date, trade: Trade, number: String, refund: Money?)] = []
        for (number, trade) in trades {
            guard let paid = trade.paid, !trade.cancelledAfterPayment else { continue }
            if day.string(from: paid) == date { movements.append((paid, trade, number, nil)) }
            for refund in trade.refunds.values where !refund.failed && day.string(from: refund.date) == date {
                movements.append((refund.date, trade, number, refund.amount))
            }
        }
        var balance: Int64 = 0
        var rows: [Alipay.FundFlowBill.Row] = []
        func row(_ movement: (at: Date, trade: Trade, number: String, refund: Money?), _ type: String, income: Int64, expense: Int64) {
            guard income > 0 || expense > 0 else { return }
            balance += income - expense
            rows.append(
                .init(
                    flowID: "\(movement.trade.tradeNo)-\(rows.count + 1)", tradeNo: movement.trade.tradeNo, outTradeNo: movement.number,
                    subject: movement.trade.subject, time: time.string(from: movement.at),
                    income: Money(minorUnits: income, currency: .cny),
                    expense: Money(minorUnits: expense, currency: .cny), balance: Money(minorUnits: balance, currency: .cny), type: type))
        }
        for movement in movements.sorted(by: { ($0.at, $0.number) < ($1.at, $1.number) }) {
            if let refund = movement.refund {
                row(movement, "交易退款", income: 0, expense: refund.minorUnits)
                row(movement, "收费退回", income: SandboxFees.fee(refund.minorUnits), expense: 0)
            } else {
                row(movement, "在线支付", income: movement.trade.total.minorUnits, expense: 0)
                row(movement, "收费", income: 0, expense: SandboxFees.fee(movement.trade.total.minorUnits))
            }
        }
        return Alipay.FundFlowBill(account: sellerID + "0156", rows: rows)
    }

    /// A bill as Alipay serves it: a zip of GBK CSVs whose names are GBK too.
    func billFile(token: String) -> HTTPServerResponse {
        guard let link = billLinks[token], link.expires > ContinuousClock.now else {
            return .text("bill link expired or unknown", status: 404)
        }
        let chinese = BeijingTime.formatter("yyyy年MM月dd日 HH:mm:ss")
        let start = BeijingTime.formatter("yyyy-MM-dd").date(from: link.date) ?? Date()
        let (from, to, exported) = (
            chinese.string(from: start), chinese.string(from: start.addingTimeInterval(86_400)), chinese.string(from: Date())
        )
        let stem = "\(sellerID)0156_\(link.date.replacingOccurrences(of: "-", with: ""))"
        let data: Data
        do {
            data =
                link.type == "signcustomer"
                ? try fundFlow(date: link.date).zipData(stem: stem, from: from, to: to, exportedAt: exported)
                : try bill(date: link.date).zipData(stem: stem, from: from, to: to, exportedAt: exported)
        } catch {
            return .text("the bill could not be made: \(error)", status: 500)
        }
        return HTTPServerResponse(
            status: 200,
            headers: [
                "Content-Type": "application/zip",
                "Content-Disposition": "attachment; filename*=UTF-8''" + Alipay.FormBody.escape("\(stem).csv.zip"),
            ],
            body: Array(data))
    }
}
