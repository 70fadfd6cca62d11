extension Alipay {
    /// The payment code (付款码) a payer shows at the counter, as Alipay documents it: 16 to 24
    /// digits beginning with 25 to 30. Checked before any call.
    public enum PaymentCode {
        /// `true` when `code` has the form of an Alipay payment code.
        public static func isValid(_ code: String) -> Bool {
            let bytes = Array(code.utf8)
            guard (16...24).contains(bytes.count), bytes.allSatisfy({ (48...57).contains($0) }) else { return false }
            let prefix = Int(bytes[0] - 48) * 10 + Int(bytes[1] - 48)
            return (25...30).contains(prefix)
        }

        /// What a valid code looks like, for error messages.
        public static let format = "16 to 24 digits beginning with 25 to 30"
    }
}
