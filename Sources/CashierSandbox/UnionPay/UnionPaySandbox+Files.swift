import Cashier
import CashierHTTP
import Foundation
import UnionPay

extension UnionPaySandbox {
    /// The file download (`txnType=76`, `fileType=00`): the day's reconciliation file for
    /// `settleDate` (MMDD, the latest such day up to today, Beijing time), or `98` when the
    /// merchant has no transaction settled that day.
    func fileDownload(_ fields: [String: String]) throws -> [String: String] {
        _ = try Self.require(fields, "txnType", ["76"])
        _ = try Self.require(fields, "fileType", ["00"])
        let merchantID = try Self.require(fields, "merId")
        let settleDate = try Self.require(fields, "settleDate")
        guard settleDate.utf8.count == 4, settleDate.allSatisfy(\.isNumber) else {
            throw Refusal(code: "10", message: "报文格式错误[1000010]: settleDate")
        }
        let settled = transactions.values.filter {
            $0.merchantID == merchantID && $0.state == .succeeded && $0.settleDate == settleDate
        }
        guard let day = settled.compactMap(\.settledDay).max() else { throw Refusal(code: "98", message: "文件不存在[9800000]") }
        let lines = settled.filter { $0.settledDay == day }.sorted { ($0.traceTime, $0.orderID) < ($1.traceTime, $1.orderID) }.map { line in
            UnionPay.ReconciliationLine(
                transactionCode: line.kind == .consume ? "S22" : (line.kind == .undo ? "S31" : "S30"), traceNo: line.traceNo,
                traceTime: line.traceTime, maskedAccount: "625902******3629", amount: Money(minorUnits: line.amount, currency: .cny),
                queryID: line.queryID, orderID: line.orderID,
                fee: Money(
                    minorUnits: line.kind == .consume ? -SandboxFees.fee(line.amount) : SandboxFees.fee(line.amount), currency: .cny),
                transactionType: line.kind.rawValue, originalQueryID: line.originalQueryID ?? "", merchantID: merchantID,
                reserved: String((line.reserved ?? "").prefix(32)))
        }
        let zip = try UnionPay.ReconciliationFile.zip(merchantID: merchantID, settleDate: day, lines: lines)
        return [
            "respCode": "00", "respMsg": "成功[0000000]", "fileName": "\(merchantID)_\(day).zip",
            "fileContent": try UnionPay.ReconciliationFile.fileContent(zip: zip),
        ]
    }

    /// The file-download host's only route: `POST /`.
    func fileAnswer(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard request.method == "POST", request.path == "/" else { return .text("not found", status: 404) }
        return answer(request, .fileDownload)
    }
}
