/// What the payer's app opens to sign an agreement, by `kind`: `url` (open the page: WeChat Pay's
/// `entrustweb`, Alipay's page sign), `wechat_pre_entrust` (hand `pre_entrustweb_id` to the WeChat
/// SDK's `WXOpenBusinessWebviewReq`), `alipay_sign_string` (hand `sign_string` to the Alipay SDK),
/// `applepay` (show `payment_request` on the Apple Pay sheet, then send the token to
/// `POST /v1/agreements/{id}/authorize`).
public struct AgreementLaunchJSON: Codable, Sendable, Equatable {
    public let kind: String
    public let url: String?
    public let pre_entrustweb_id: String?
    public let sign_string: String?
    public let payment_request: JSONValue?

    public init(
        kind: String, url: String? = nil, pre_entrustweb_id: String? = nil, sign_string: String? = nil, payment_request: JSONValue? = nil
    ) {
        self.kind = kind
        self.url = url
        self.pre_entrustweb_id = pre_entrustweb_id
        self.sign_string = sign_string
        self.payment_request = payment_request
    }
}
