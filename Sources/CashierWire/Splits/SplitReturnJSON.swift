/// A return of part of a share (WeChat Pay's 分账回退), as the API answers it.
public struct SplitReturnJSON: Codable, Sendable, Equatable {
    /// `sret_…`.
    public let id: String
    public let split_id: String
    public let order_id: String
    /// The number the provider knows it by (`out_return_no`).
    public let out_return_no: String
    /// The receiver the money comes back from.
    public let account: String
    public let amount: Amount
    public let description: String
    /// `pending`, `succeeded`, `failed`.
    public let status: String
    public let provider_state: String?
    public let failure_reason: String?
    /// Unix seconds.
    public let created: Int64
    public let updated: Int64

    public init(
        id: String, split_id: String, order_id: String, out_return_no: String, account: String, amount: Amount, description: String,
        status: String, provider_state: String?, failure_reason: String?, created: Int64, updated: Int64
    ) {
        self.id = id
        self.split_id = split_id
        self.order_id = order_id
        self.out_return_no = out_return_no
        self.account = account
        self.amount = amount
        self.description = description
        self.status = status
        self.provider_state = provider_state
        self.failure_reason = failure_reason
        self.created = created
        self.updated = updated
    }
}
