public import Foundation

/// The URLs the wallets open the app with when they hand back. Useful when the app is relaunched
/// and the SDK's callback block is gone: the outcome is read from the URL, and (like every
/// outcome but "cancelled") still confirmed with the server.
extension WalletOutcome {
    /// Alipay's return URL, `<scheme>://safepay/?` followed by percent-encoded JSON:
    /// `{"memo":{"ResultStatus":"9000","memo":"","result":"…"},"requestType":"safepay"}`.
    /// `nil` for any other URL.
    public init?(alipayCallbackURL url: URL) {
        guard url.host == "safepay",
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
            let json = query.removingPercentEncoding,  // '+' stays '+': the JSON may carry base64
            let memo = (try? JSONDecoder().decode(AlipayCallback.self, from: Data(json.utf8)))?.memo,
            let status = memo.ResultStatus ?? memo.resultStatus
        else { return nil }
        self = .alipay(resultStatus: status, memo: memo.memo ?? "", result: memo.result ?? "")
    }

    /// The JSON in Alipay's return URL: `{"memo":{"ResultStatus":…,"memo":…,"result":…}}`.
    private struct AlipayCallback: Decodable {
        struct Memo: Decodable {
            let ResultStatus: String?
            let resultStatus: String?
            let memo: String?
            let result: String?
        }
        let memo: Memo?
    }

    /// WeChat's return URL after a payment, `wx<appid>://pay/?returnKey=…&ret=0` (`ret` is
    /// `BaseResp.errCode`: 0 success, -1 error, -2 cancelled). `nil` for any other URL.
    public init?(wechatCallbackURL url: URL) {
        guard url.host == "pay", url.scheme?.hasPrefix("wx") == true,
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            let code = items.first(where: { $0.name == "ret" })?.value.flatMap(Int.init)
        else { return nil }
        self = .wechat(errCode: code)
    }
}
