/// One row of a result read a row at a time (``Reports/exportPayments(matching:_:)``): its
/// columns by position, as the database sent them, without a value, a string or a record made
/// for each. What it hands out is valid only until the closure it was handed to returns.
public protocol StreamedRow {
    /// The column's text as UTF-8 bytes (an integer column's as its decimal digits); `nil` when it is `NULL`.
    func bytes(_ column: Int) -> UnsafeBufferPointer<UInt8>?
    /// The column's integer; `nil` when it is `NULL` or not an integer.
    func integer(_ column: Int) -> Int64?
}

/// The columns of a payments export row, in the order ``StreamedRow`` numbers them: the
/// payments export's CSV columns, with the two amounts in minor units (and `refund_required` 0 or 1).
public enum PaymentExportColumn: Int, CaseIterable, Sendable {
    case id, orderID, createdAt, succeededAt, method, provider, outTradeNo, transactionID, status, currency, amountMinor, refundedMinor,
        refundRequired

    /// The `payments` column each is read from.
    public var name: String {
        switch self {
        case .id: "id"
        case .orderID: "order_id"
        case .createdAt: "created_at"
        case .succeededAt: "succeeded_at"
        case .method: "method"
        case .provider: "provider"
        case .outTradeNo: "out_trade_no"
        case .transactionID: "transaction_id"
        case .status: "status"
        case .currency: "currency"
        case .amountMinor: "amount_minor"
        case .refundedMinor: "refunded_minor"
        case .refundRequired: "refund_required"
        }
    }
}
