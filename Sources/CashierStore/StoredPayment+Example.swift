import Cashier
import Foundation

extension StoredPayment {
    /// The payment that paid ``StoredOrder/example``, for documentation.
    public static let example = StoredPayment(
        id: "pay_6c1e2d3f4a5b6c7d", orderID: StoredOrder.example.id, method: .wechatNative, provider: .wechatV2,
        outTradeNo: "C20261201143000A1B2", appID: "wx2421b1c4370ec43b", merchantID: "10000100", payer: nil,
        transactionID: "4200001234202612011234567890", walletToken: nil, amount: Money(minorUnits: 2550, currency: .cny),
        refunded: Money(minorUnits: 550, currency: .cny), reserved: Money(minorUnits: 550, currency: .cny), status: .succeeded,
        refundRequired: false, failureReason: nil, createdAt: Date(timeIntervalSince1970: 1_796_113_805),
        updatedAt: Date(timeIntervalSince1970: 1_796_113_830), succeededAt: Date(timeIntervalSince1970: 1_796_113_830))
}
