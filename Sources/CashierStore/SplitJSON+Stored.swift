import Cashier
public import CashierWire

extension SplitJSON {
    /// The split as the API and its webhooks give it.
    public init(_ split: StoredSplit) {
        let currency = split.amount.currency
        func amount(_ minor: Int64) -> Amount { Amount(Money(minorUnits: minor, currency: currency)) }
        self.init(
            id: split.id, order_id: split.orderID, payment_id: split.paymentID, provider: ReceiverJSON.apiProvider(split.provider),
            out_order_no: split.outOrderNo, provider_order_id: split.providerOrderID, status: split.status.rawValue,
            provider_state: split.providerState, amount: Amount(split.amount), finish: split.finish, description: split.description,
            receivers: split.shares.map {
                Share(
                    type: $0.type, account: $0.account, amount: amount($0.amountMinor), description: $0.description,
                    result: $0.result.rawValue, failure_reason: $0.failReason, returned: amount($0.returnedMinor))
            }, failure_reason: split.failureReason, created: Int64(split.createdAt.timeIntervalSince1970),
            updated: Int64(split.updatedAt.timeIntervalSince1970), finished: split.finishedAt.map { Int64($0.timeIntervalSince1970) })
    }
}

extension SplitReturnJSON {
    public init(_ splitReturn: StoredSplitReturn) {
        self.init(
            id: splitReturn.id, split_id: splitReturn.splitID, order_id: splitReturn.orderID, out_return_no: splitReturn.outReturnNo,
            account: splitReturn.account, amount: Amount(splitReturn.amount), description: splitReturn.description,
            status: splitReturn.status.rawValue, provider_state: splitReturn.providerState, failure_reason: splitReturn.failureReason,
            created: Int64(splitReturn.createdAt.timeIntervalSince1970), updated: Int64(splitReturn.updatedAt.timeIntervalSince1970))
    }
}

extension ReceiverJSON {
    public init(_ receiver: StoredReceiver) {
        self.init(
            id: receiver.id, provider: Self.apiProvider(receiver.provider), type: receiver.type, account: receiver.account,
            relation_type: receiver.relationType, custom_relation: receiver.customRelation, status: receiver.status.rawValue,
            created: Int64(receiver.createdAt.timeIntervalSince1970))
    }

    /// The API's name for a stored provider (`wechat.v3` is `wechat`).
    public static func apiProvider(_ stored: String) -> String { stored.hasPrefix("wechat") ? "wechat" : stored }
}
