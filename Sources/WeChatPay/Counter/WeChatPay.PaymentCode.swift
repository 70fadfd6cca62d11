extension WeChatPay {
    /// The payment code (付款码) a payer shows at the counter, as WeChat Pay documents it:
    /// 18 digits beginning with 10 to 15. Checked before any call, so a mistyped or foreign code
    /// (an Alipay code scanned into the WeChat Pay till) is refused with a clear word.
    public enum PaymentCode {
        /// `true` when `code` has the form of a WeChat Pay payment code.
        public static func isValid(_ code: String) -> Bool {
            let bytes = Array(code.utf8)
            guard bytes.count == 18, bytes.allSatisfy({ (48...57).contains($0) }) else { return false }
            return bytes[0] == 49 && (48...53).contains(bytes[1])  // "10" … "15"
        }

        /// What a valid code looks like, for error messages.
        public static let format = "18 digits beginning with 10 to 15"
    }
}
