/// `POST /v1/orders/{id}/splits`: shares of a paid order to receivers added before.
struct SplitBody: Decodable, Sendable {
    /// One receiver's share.
    struct Share: Decodable, Sendable {
        /// The receiver (`rcv_…`), added with `POST /v1/receivers`; or name them by `type` and `account`.
        let receiver: String?
        /// The receiver's type (`MERCHANT_ID`, `PERSONAL_OPENID`, `userId`, …), with `account`, instead of `receiver`.
        let type: String?
        let account: String?
        /// In minor units (fen).
        let amount: WholeNumber
        /// What the receiver reads (at most 80 characters); default the split's description.
        let description: String?
    }

    /// 1 to 50 shares (Alipay: 1 to 50 in its asynchronous mode).
    let receivers: [Share]
    /// What the request is for (at most 80 characters); default `分账`.
    let description: String?
    /// Ends the order's sharing with this request: what is left unfreezes to the merchant.
    let finish: Bool?
}

/// `POST /v1/orders/{id}/splits/finish`: end the order's sharing; what is left unfreezes to the merchant.
struct SplitFinishBody: Decodable, Sendable {
    /// Why (at most 80 characters); default `解冻全部剩余资金`.
    let description: String?
}

/// `POST /v1/splits/{id}/returns`: take money back from one receiver of a split.
struct SplitReturnBody: Decodable, Sendable {
    /// The receiver (`rcv_…`) whose share it comes back from.
    let receiver: String
    /// In minor units (fen).
    let amount: WholeNumber
    /// Why (at most 80 characters).
    let description: String
}

/// `POST /v1/receivers`: someone orders may be shared with.
struct ReceiverBody: Decodable, Sendable {
    /// `wechat` or `alipay`.
    let provider: String
    /// WeChat Pay: `MERCHANT_ID`, `PERSONAL_OPENID`, `PERSONAL_SUB_OPENID`; Alipay: `userId`, `loginName`, `openId`.
    let type: String
    /// The merchant id, openid, Alipay user id or logon.
    let account: String
    /// Their real name (a company's full registered name for `MERCHANT_ID`, required there); sent
    /// encrypted, never kept or returned.
    let name: String?
    /// WeChat Pay's `relation_type` (`STORE`, `STAFF`, `PARTNER`, `SUPPLIER`, `CUSTOM`, …); default `PARTNER`.
    let relation_type: String?
    /// The relation in words when `relation_type` is `CUSTOM` (at most 10 characters).
    let custom_relation: String?
}
