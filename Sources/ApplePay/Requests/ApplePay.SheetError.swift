extension ApplePay {
    /// An error the payment sheet shows next to a field (`ApplePayError` / `PKPaymentRequest…Error`).
    public struct SheetError: Sendable, Equatable, Encodable {
        public enum Code: String, Sendable, Encodable {
            case shippingContactInvalid, billingContactInvalid, addressUnserviceable, couponCodeInvalid, couponCodeExpired, unknown
        }

        public var code: Code
        /// e.g. `postalCode`, `locality`, `countryCode`, `phoneNumber`, `emailAddress`.
        public var contactField: String?
        public var message: String

        public init(code: Code, contactField: String? = nil, message: String) {
            self.code = code
            self.contactField = contactField
            self.message = message
        }

        var jsonObject: [String: Any] {
            var object: [String: Any] = ["code": code.rawValue, "message": message]
            if let contactField { object["contactField"] = contactField }
            return object
        }
    }
}
