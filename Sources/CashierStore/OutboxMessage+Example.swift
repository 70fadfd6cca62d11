import Cashier
import Foundation

extension OutboxMessage {
    /// A delivered `order.paid` webhook of ``StoredOrder/example``, for documentation.
    public static let example = OutboxMessage(
        id: "evt_5f4e3d2c1b0a49388271605f4e3d2c1b", orderID: StoredOrder.example.id, type: "order.paid", payload: "{}", attempts: 1,
        nextAttemptAt: Date(timeIntervalSince1970: 1_796_113_830), deliveredAt: Date(timeIntervalSince1970: 1_796_113_831),
        createdAt: Date(timeIntervalSince1970: 1_796_113_830), lastError: nil)
}
