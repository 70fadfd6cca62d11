extension WeChatPay.V2 {
    /// How a v2 document is signed: `MD5` (the default when `sign_type` is absent) or `HMAC-SHA256`.
    public enum SignType: String, Hashable, Sendable, CaseIterable {
        /// Upper-case hex MD5 of `stringA&key=API_KEY`. Legacy, but the default.
        case md5 = "MD5"
        /// Upper-case hex HMAC-SHA256, keyed with the API key, of the same string.
        case hmacSHA256 = "HMAC-SHA256"

        /// Parses the `sign_type` field or a command-line value (case-insensitive).
        public init?(field: String) {
            guard let type = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(field) == .orderedSame }) else {
                return nil
            }
            self = type
        }
    }
}
