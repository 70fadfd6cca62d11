import CashierClient
import CashierWire
import Foundation
import Testing

/// The confirmation the app hands to WeChat for a transfer: read from Cashier's transfer JSON
/// only while it waits for its payee, and written as the OpenSDK's query.
@Suite struct MerchantTransferRequestTests {
    static func transfer(status: String = "waiting_for_payee", package: String? = "aGVsbG8+d29ybGQ/PQ==") -> TransferJSON {
        TransferJSON(
            id: "tr_1", provider: "wechat", out_bill_no: "T1", provider_bill_no: "1330000000000001", status: status,
            provider_state: "WAIT_USER_CONFIRM", amount: Amount(amount: "5.00", amount_minor: 500, currency: "CNY"), openid: "o1",
            remark: "奖励", scene: "1000", user_name_given: false, package_info: package, mch_id: "1230000109",
            app_id: "wxd678efh567hg6787", failure_reason: nil, created: 1, updated: 1, finished: nil)
    }

    @Test func aWaitingTransferGivesWeChatItsThreeFields() throws {
        let data = try JSONEncoder().encode(Self.transfer())
        let request = try MerchantTransferRequest(transferJSON: data)
        #expect(request == MerchantTransferRequest(mchId: "1230000109", appId: "wxd678efh567hg6787", package: "aGVsbG8+d29ybGQ/PQ=="))
        #expect(request.query == "mchId=1230000109&appId=wxd678efh567hg6787&package=aGVsbG8%2Bd29ybGQ%2FPQ%3D%3D")
        #expect(MerchantTransferRequest.businessType == "requestMerchantTransfer")
    }

    @Test func aTransferNotWaitingOrNotATransferIsRefused() {
        for transfer in [Self.transfer(status: "succeeded"), Self.transfer(package: nil), Self.transfer(package: "")] {
            let error = #expect(throws: CashierClientError.self) { try MerchantTransferRequest(transfer: transfer) }
            #expect(error?.code == "transfer_not_waiting")
        }
        let garbage = #expect(throws: CashierClientError.self) { try MerchantTransferRequest(transferJSON: Data("{}".utf8)) }
        #expect(garbage?.code == "invalid_response")
    }
}
