public import Cashier
public import CashierWire

extension DisputeJSON {
    /// A dispute of `amount` (see the memberwise initializer for the other fields).
    public init(
        id: String, processor: String, paymentID: String, amount: Money, reason: String?, status: String?, evidenceDueBy: Int64?
    ) {
        self.init(
            id: id, processor: processor, paymentID: paymentID, amount: Amount(amount), reason: reason, status: status,
            evidenceDueBy: evidenceDueBy)
    }
}
