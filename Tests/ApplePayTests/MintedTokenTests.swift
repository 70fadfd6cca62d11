import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Testing

/// Tokens minted by the sandbox's test CA, for EC_v1 and RSA_v1, and every way one must be refused.
@Suite struct MintedTokenTests {
    static let ca = try! ApplePayTestCA()
    static let minter = ApplePayTokenMinter(ca: ca)
    static let ecMerchant = try! ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.cashier")
    static let rsaMerchant = try! ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.cashier", rsa: true)
    static let total = Money(minorUnits: 12_75, currency: .cny)

    static func decrypter(keys: [ApplePay.MerchantKey] = [ecMerchant, rsaMerchant], ca: ApplePayTestCA = ca, now: Date = Date())
        throws -> ApplePay.TokenDecrypter
    {
        ApplePay.TokenDecrypter(merchantKeys: keys, verifier: try ApplePay.TokenVerifier(trustAnchors: [ca.root], clock: { now }))
    }

    static func failedCheck(_ body: () throws -> Void) -> String? {
        (#expect(throws: PaymentError.self) { try body() })?.details
    }

    @Test(arguments: [false, true], [nil, Array("order ord_42".utf8)])
    func mintedTokensDecrypt(rsa: Bool, applicationData: [UInt8]?) throws {
        let merchant = rsa ? Self.rsaMerchant : Self.ecMerchant
        let token = try Self.minter.mint(for: merchant, amount: Self.total, applicationData: applicationData)
        #expect(token.version == (rsa ? .rsaV1 : .ecV1))
        // Through JSON, as a device would send it.
        let parsed = try ApplePay.PaymentToken(json: try JSONEncoder().encode(["token": ["paymentData": token]]))
        let payment = try Self.decrypter().decrypt(parsed, applicationData: applicationData)
        try payment.check(total: Self.total)
        #expect(payment.applicationPrimaryAccountNumber == "4111111111111111" && payment.currencyCode == "156")
    }

    @Test func everyNegativeCaseNamesItsCheck() throws {
        let appData = Array("order ord_42".utf8)
        let token = try Self.minter.mint(for: Self.ecMerchant, amount: Self.total, applicationData: appData)
        // One instant for the decrypter's clock and the skewed signing times: a test held up for a
        // second between them must not move a token into or out of the window.
        let now = Date()
        let decrypter = try Self.decrypter(now: now)

        var tamperedData = token
        var bytes = Array(try Base64.decode(token.data))
        bytes[0] ^= 1
        tamperedData.data = Base64.encode(bytes)
        #expect(Self.failedCheck { _ = try decrypter.decrypt(tamperedData, applicationData: appData) } == "signature")

        var tamperedAppData = token
        tamperedAppData.header.applicationData = Hex.encode(DigestAlgorithm.sha256.hash(Array("order ord_43".utf8)))
        #expect(Self.failedCheck { _ = try decrypter.decrypt(tamperedAppData, applicationData: appData) } == "signature")
        #expect(Self.failedCheck { _ = try decrypter.decrypt(token, applicationData: Array("order ord_43".utf8)) } == "applicationData")

        let noLeafOID = try ApplePayTestCA(leafHasOID: false)
        let fromNoLeafOID = try ApplePayTokenMinter(ca: noLeafOID).mint(for: Self.ecMerchant, amount: Self.total)
        #expect(Self.failedCheck { _ = try Self.decrypter(ca: noLeafOID).decrypt(fromNoLeafOID) } == "leaf OID")

        let noIntermediateOID = try ApplePayTestCA(intermediateHasOID: false)
        let fromNoIntermediateOID = try ApplePayTokenMinter(ca: noIntermediateOID).mint(for: Self.ecMerchant, amount: Self.total)
        #expect(Self.failedCheck { _ = try Self.decrypter(ca: noIntermediateOID).decrypt(fromNoIntermediateOID) } == "intermediate OID")

        let otherCA = try ApplePayTestCA()
        #expect(Self.failedCheck { _ = try Self.decrypter(ca: otherCA).decrypt(token, applicationData: appData) } == "chain")

        for offset in [-301.0, 301.0] {
            let skewed = try Self.minter.mint(for: Self.ecMerchant, amount: Self.total, signedAt: now.addingTimeInterval(offset))
            #expect(Self.failedCheck { _ = try decrypter.decrypt(skewed) } == "signing time")
        }
        let withinWindow = try Self.minter.mint(for: Self.ecMerchant, amount: Self.total, signedAt: now.addingTimeInterval(-240))
        _ = try decrypter.decrypt(withinWindow)

        let otherMerchant = try Self.ca.issueMerchantKey(merchantIdentifier: "merchant.com.other")
        let forOther = try Self.minter.mint(for: otherMerchant, amount: Self.total)
        #expect(Self.failedCheck { _ = try decrypter.decrypt(forOther) } == "key hash")
        // Key rotation: with the other merchant's key configured too, it decrypts.
        _ = try Self.decrypter(keys: [Self.ecMerchant, otherMerchant]).decrypt(forOther)

        // A key that is not the certificate's is refused when configured, before any token.
        let mismatched = #expect(throws: PaymentError.self) {
            try ApplePay.MerchantKey(certificate: Self.ecMerchant.certificate, privateKey: .p256(try P256PrivateKey()))
        }
        #expect(mismatched?.code == .invalidConfiguration)
        // An RSA_v1 token under an EC key of the same hash cannot happen; an altered wrapped key fails to unwrap.
        var rsaToken = try Self.minter.mint(for: Self.rsaMerchant, amount: Self.total)
        var wrapped = Array(try Base64.decode(rsaToken.header.wrappedKey ?? ""))
        wrapped[10] ^= 1
        rsaToken.header.wrappedKey = Base64.encode(wrapped)
        #expect(throws: PaymentError.self) { _ = try decrypter.decrypt(rsaToken) }
        #expect(Self.failedCheck { _ = try decrypter.decryptWithoutVerifying(rsaToken) } == "decryption")
        // Another amount than the order's.
        let payment = try decrypter.decrypt(token, applicationData: appData)
        #expect(
            (#expect(throws: PaymentError.self) { try payment.check(total: Money(minorUnits: 12_76, currency: .cny)) })?.code
                == .amountMismatch)
    }

    /// Apple signs what the payer pays: the minter makes no token for a negative amount, and a
    /// decrypted payload that claims one is not Apple's payment data.
    @Test func aNegativeAmountIsNeverAToken() throws {
        let refused = #expect(throws: PaymentError.self) {
            _ = try Self.minter.mint(for: Self.ecMerchant, amount: Money(minorUnits: -1, currency: .cny))
        }
        #expect(refused?.code == .invalidRequest)
        _ = try Self.minter.mint(for: Self.ecMerchant, amount: Money(minorUnits: 0, currency: .cny))
        func payload(_ amount: String) -> Data {
            Data(
                #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"291231","currencyCode":"156","transactionAmount":\#(amount),"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"AgAAAAAABk4DWZ4C28yUQAAAAAA="}}"#
                    .utf8)
        }
        #expect(ApplePay.DecryptedPayment(json: payload("1275"))?.transactionAmount == 1275)
        #expect(ApplePay.DecryptedPayment(json: payload("0"))?.transactionAmount == 0)
        #expect(ApplePay.DecryptedPayment(json: payload("-1275")) == nil)
    }
}
