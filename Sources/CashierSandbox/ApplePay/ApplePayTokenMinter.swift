public import ApplePay
public import Cashier
public import CashierCrypto
public import Foundation

/// Mints Apple Pay tokens the way Apple's servers do, signed by an ``ApplePayTestCA`` and
/// encrypted for a merchant processing certificate: EC_v1 (ephemeral ECDH) or RSA_v1 (OAEP
/// wrapped key), any amount, currency, applicationData and signing time.
public struct ApplePayTokenMinter: Sendable {
    public let ca: ApplePayTestCA

    public init(ca: ApplePayTestCA) {
        self.ca = ca
    }

    /// What the minted token pays with.
    public struct Card: Sendable {
        public var accountNumber: String
        public var expiration: String
        public var cryptogram: String
        public var eci: String?

        public init(
            accountNumber: String = "4111111111111111", expiration: String = "291231", cryptogram: String = "AgAAAAAABk4DWZ4C28yUQAAAAAA=",
            eci: String? = "05"
        ) {
            self.accountNumber = accountNumber
            self.expiration = expiration
            self.cryptogram = cryptogram
            self.eci = eci
        }
    }

    /// A token for `merchant`, paying `amount`.
    /// - Parameters:
    ///   - applicationData: the request's applicationData; the header carries its SHA-256.
    ///   - signedAt: the CMS signingTime (now by default; move it to test the window).
    public func mint(
        for merchant: ApplePay.MerchantKey, amount: Money, card: Card = Card(), applicationData: [UInt8]? = nil, signedAt: Date = Date()
    ) throws -> ApplePay.PaymentToken {
        try mint(for: merchant.certificate, amount: amount, card: card, applicationData: applicationData, signedAt: signedAt)
    }

    /// A token for the merchant whose processing certificate is `certificate` (its public key
    /// is all a minter needs): EC_v1 for a P-256 key, RSA_v1 for an RSA key.
    /// - Throws: `PaymentError.invalidRequest` for a negative amount, which Apple never signs.
    public func mint(
        for certificate: X509Certificate, amount: Money, card: Card = Card(), applicationData: [UInt8]? = nil, signedAt: Date = Date()
    ) throws -> ApplePay.PaymentToken {
        guard amount.minorUnits >= 0 else {
            throw PaymentError(.invalidRequest, provider: .applePay, "an Apple Pay token cannot authorise a negative amount (\(amount))")
        }
        let payment = ApplePay.DecryptedPayment(
            applicationPrimaryAccountNumber: card.accountNumber, applicationExpirationDate: card.expiration,
            currencyCode: String(format: "%03d", amount.currency.numericCode), transactionAmount: amount.minorUnits,
            deviceManufacturerIdentifier: "040010030273", paymentDataType: "3DSecure",
            paymentData: .init(onlinePaymentCryptogram: card.cryptogram, eciIndicator: card.eci))
        let plaintext = Array(try JSONEncoder().encode(payment))
        var header = ApplePay.PaymentToken.Header(
            publicKeyHash: ApplePay.MerchantKey.publicKeyHash(of: certificate), transactionId: Hex.encode(SecureRandom.bytes(count: 32)),
            applicationData: applicationData.map { Hex.encode(DigestAlgorithm.sha256.hash($0)) })
        let version: ApplePay.PaymentToken.Version
        let symmetricKey: [UInt8]
        if let merchantKey = try? P256PublicKey(certificate: certificate) {
            let ephemeral = try P256PrivateKey()
            header.ephemeralPublicKey = Base64.encode(ephemeral.publicKey.derRepresentation)
            let secret = try ephemeral.sharedSecret(with: merchantKey)
            symmetricKey = ApplePay.ecSymmetricKey(
                sharedSecret: secret, merchantIdentifierHash: try ApplePay.MerchantKey.merchantIdentifierHash(of: certificate))
            version = .ecV1
        } else {
            let merchantKey = try RSAPublicKey(certificate: certificate)
            symmetricKey = SecureRandom.bytes(count: 32)
            header.wrappedKey = Base64.encode(try merchantKey.encrypt(symmetricKey, padding: .oaepSHA256))
            version = .rsaV1
        }
        let sealed = try AESGCMKey(symmetricKey).seal(plaintext, iv: [UInt8](repeating: 0, count: 16))
        var token = ApplePay.PaymentToken(version: version, data: Base64.encode(sealed.combined), signature: "", header: header)
        let signature = try CMSSignedData.signDetached(
            content: try token.signedContent(), signer: ca.leaf, key: .p256(ca.leafKey), certificates: [ca.intermediate],
            signingTime: signedAt)
        token.signature = Base64.encode(signature)
        return token
    }
}
