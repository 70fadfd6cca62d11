import Cashier

extension ApplePay {
    /// The check a token failed, named in every refusal (`PaymentError.details` holds the raw value).
    public enum TokenCheck: String, Sendable {
        case format
        case signature
        case chain
        case leafOID = "leaf OID"
        case intermediateOID = "intermediate OID"
        case signingTime = "signing time"
        case applicationData
        case keyHash = "key hash"
        case decryption
        case amount

        var code: PaymentError.Code {
            switch self {
            case .format: .malformedMessage
            case .signature, .chain, .leafOID, .intermediateOID, .applicationData: .signatureMismatch
            case .signingTime: .replayed
            case .keyHash: .unknownKey
            case .decryption: .decryptionFailure
            case .amount: .amountMismatch
            }
        }

        /// A refusal: the message starts with the check's name, so one line says what failed.
        func failure(_ reason: String) -> PaymentError {
            PaymentError(code, provider: .applePay, "\(rawValue): \(reason)", details: rawValue)
        }
    }
}
