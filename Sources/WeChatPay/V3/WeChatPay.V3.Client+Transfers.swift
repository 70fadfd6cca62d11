import Cashier
import CashierCrypto
import Foundation

/// Merchant transfers (商家转账, the API of 2025): create a transfer bill, cancel it, and ask
/// where it stands by either number. A transfer the payee has to confirm comes back in
/// `WAIT_USER_CONFIRM` with its `package_info`; its end (`SUCCESS`, `FAIL`, `CANCELLED`) is
/// notified as `MCHTRANSFER.BILL.FINISHED` (``WeChatPay/V3/TransferBillEvent``).
///
/// On an answer that is not 2xx, or none, do not change the `out_bill_no`: ask with
/// ``transferBill(outBillNo:)`` first, then retry with the same number.
extension WeChatPay.V3.Client {
    /// `/v3/fund-app/mch-transfer/transfer-bills`.
    static let transferBillsPath = "/v3/fund-app/mch-transfer/transfer-bills"

    /// Creates a transfer bill (or, sent again with the same `out_bill_no` and body, answers the
    /// same bill with a fresh `package_info`).
    ///
    /// A `user_name` is encrypted for the platform key ``PlatformKeys/encryptionKey(at:)`` picks
    /// (downloading the platform certificates first when none is held), and its serial is sent
    /// as `Wechatpay-Serial`.
    /// - Parameter request: the transfer.
    /// - Returns: the bill, usually `WAIT_USER_CONFIRM` with ``WeChatPay/V3/TransferBill/packageInfo``.
    /// - Throws: `PaymentError.invalidRequest` before sending (see ``WeChatPay/V3/TransferBillRequest/validate()``);
    ///   `.providerRejected` with WeChat's code (`PARAM_ERROR`, `NOT_ENOUGH`, `INVALID_REQUEST`, …).
    public func createTransferBill(_ request: WeChatPay.V3.TransferBillRequest) async throws -> WeChatPay.V3.TransferBill {
        try request.validate()
        let (key, headers) = try await sensitiveFieldKey(needed: request.userName?.isEmpty == false, field: "user_name")
        let bill = try WeChatPay.V3.TransferBill.decode(
            try await send("POST", Self.transferBillsPath, json: try request.body(encryptingFor: key), headers: headers))
        try Self.expect(bill, outBillNo: request.outBillNo)
        return bill
    }

    /// Cancels a bill that has not ended: it answers `CANCELING` or `CANCELLED`.
    /// - Parameter outBillNo: the merchant's number.
    /// - Throws: `.providerRejected` (`INVALID_REQUEST` once the payee confirmed or it ended).
    public func cancelTransferBill(outBillNo: String) async throws -> WeChatPay.V3.TransferBill {
        let number = try Self.billNumber(outBillNo)
        let bill = try WeChatPay.V3.TransferBill.decode(
            try await send("POST", "\(Self.transferBillsPath)/out-bill-no/\(number)/cancel"))
        try Self.expect(bill, outBillNo: outBillNo)
        return bill
    }

    /// Where a bill stands, by the merchant's number (WeChat keeps 30 days).
    /// - Throws: `.providerRejected` with `NOT_FOUND` for a bill WeChat does not know.
    public func transferBill(outBillNo: String) async throws -> WeChatPay.V3.TransferBill {
        let number = try Self.billNumber(outBillNo)
        let bill = try WeChatPay.V3.TransferBill.decode(try await send("GET", "\(Self.transferBillsPath)/out-bill-no/\(number)"))
        try Self.expect(bill, outBillNo: outBillNo)
        return bill
    }

    /// Where a bill stands, by WeChat's number.
    public func transferBill(transferBillNo: String) async throws -> WeChatPay.V3.TransferBill {
        let number = try Self.billNumber(transferBillNo, what: "transfer_bill_no", limit: 64)
        let bill = try WeChatPay.V3.TransferBill.decode(
            try await send("GET", "\(Self.transferBillsPath)/transfer-bill-no/\(number)"))
        guard bill.transferBillNo == transferBillNo else {
            throw PaymentError(
                .malformedMessage, provider: .wechatV3, "the answer is about transfer bill \(bill.transferBillNo.prefix(64))")
        }
        return bill
    }

    static func billNumber(_ number: String, what: String = "out_bill_no", limit: Int = 32) throws -> String {
        guard !number.isEmpty, number.utf8.count <= limit, number.utf8.allSatisfy(\.isASCIIAlphanumeric) else {
            throw refused("\(what) must be 1 to \(limit) letters and digits")
        }
        return number
    }

    static func expect(_ bill: WeChatPay.V3.TransferBill, outBillNo: String) throws {
        guard bill.outBillNo == outBillNo else {
            throw PaymentError(
                .malformedMessage, provider: .wechatV3, "the answer is about bill \(bill.outBillNo.prefix(32)), not \(outBillNo)")
        }
    }
}
