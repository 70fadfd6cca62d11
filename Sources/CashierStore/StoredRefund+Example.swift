import Cashier
import Foundation

extension StoredRefund {
    /// A refund of 5.50 CNY of ``StoredPayment/example``, for documentation.
    public static let example = StoredRefund(
        id: "ref_9a8b7c6d5e4f3a2b", orderID: StoredOrder.example.id, paymentID: StoredPayment.example.id,
        outRefundNo: "R20261201150000C3D4", amount: Money(minorUnits: 550, currency: .cny), status: .succeeded,
        providerRefundID: "50000000382019052709732678859", reason: "one latte was cold", failureReason: nil,
        createdAt: Date(timeIntervalSince1970: 1_796_115_600), updatedAt: Date(timeIntervalSince1970: 1_796_115_610),
        finishedAt: Date(timeIntervalSince1970: 1_796_115_610), confirmedAt: nil, requestedBy: "api")
}
