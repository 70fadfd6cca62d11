/// `POST /v1/transfers`: money out of the merchant's WeChat Pay account to a person, who
/// confirms it in WeChat.
struct TransferBody: Decodable, Sendable {
    /// One of `transfer_scene_report_infos`: what the scene asks the merchant to report.
    struct ReportInfo: Decodable, Sendable {
        let info_type: String
        let info_content: String
    }

    /// `wechat` (WeChat Pay's 商家转账, API v3: the payee confirms) or `alipay` (单笔转账: paid at once).
    let provider: String
    /// In fen.
    let amount: WholeNumber
    /// `CNY`.
    let currency: String
    /// The payee: an openid under the configured WeChat app, or an Alipay user id (`2088…`) or open id.
    let openid: String
    /// The payee's real name: required from 2,000 yuan (200000 fen); sent encrypted, never returned.
    let user_name: String?
    /// What the payee reads (at most 32 characters).
    let remark: String
    /// WeChat's `transfer_scene_id` (default `1000`, 现金营销).
    let scene: String?
    /// What the scene asks to report (default: one `转账说明` of the remark).
    let report_infos: [ReportInfo]?
    /// What the payee sees the money as (`user_recv_perception`, e.g. `现金奖励`).
    let perception: String?
}
