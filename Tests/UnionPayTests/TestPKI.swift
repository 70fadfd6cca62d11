import CashierCrypto
import Foundation
import TestSupport
import UnionPay

/// A UnionPay-shaped PKI made at test time from TEST KEYS (Tests/TestSupport/TestKeys.swift):
/// root → middle → UnionPay's signing certificate, and a merchant's signing certificate. Nothing
/// here is, or was copied from, a real certificate.
struct TestPKI: Sendable {
    let rootKey = TestKeys.rsa(1)
    let middleKey = TestKeys.rsa(2)
    let unionPayKey = TestKeys.rsa(3)
    let merchantKey = TestKeys.rsa(0)
    let root: X509Certificate
    let middle: X509Certificate
    let unionPay: X509Certificate
    let merchant: X509Certificate

    static let unionPayCN = "041@Z2026-01-01@中国银联股份有限公司@00000001"
    static let merchantID = "777290058110048"

    init() throws {
        root = try CertificateBuilder(
            subject: [("C", "CN"), ("O", "Cashier Test"), ("CN", "Cashier TEST UnionPay Root")], serialNumber: 1,
            isCertificateAuthority: true
        ).issue(publicKey: .rsa(rootKey.publicKey), signedBy: .rsa(rootKey))
        middle = try CertificateBuilder(
            subject: [("C", "CN"), ("O", "Cashier Test"), ("CN", "Cashier TEST UnionPay Middle")], serialNumber: 2,
            isCertificateAuthority: true
        ).issue(publicKey: .rsa(middleKey.publicKey), issuer: root, signedBy: .rsa(rootKey))
        unionPay = try Self.issue(Self.unionPayCN, key: unionPayKey, serial: 0x1002_6532_16, by: (middle, middleKey))
        merchant = try Self.issue(
            "041@Z2026-01-01@\(Self.merchantID):SIGN@00000006", key: merchantKey, serial: 0x1002_6532_15, by: (middle, middleKey))
    }

    /// A leaf under `issuer` with `cn`, valid over `validity` (now ± a day by default).
    static func issue(
        _ cn: String, key: RSAPrivateKey, serial: UInt64, by issuer: (X509Certificate, RSAPrivateKey),
        validity: ClosedRange<Date> = Date(timeIntervalSinceNow: -86_400)...Date(timeIntervalSinceNow: 86_400)
    ) throws -> X509Certificate {
        try CertificateBuilder(
            subject: [("C", "CN"), ("O", "China UnionPay TEST"), ("OU", "00000000000"), ("CN", cn)], serialNumber: serial,
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound
        ).issue(publicKey: .rsa(key.publicKey), issuer: issuer.0, signedBy: .rsa(issuer.1))
    }

    func verifier(owner: UnionPay.Verifier.Owner = .unionPay, legacy: [X509Certificate] = [], now: Date = Date()) throws
        -> UnionPay.Verifier
    {
        try UnionPay.Verifier(root: root, middle: middle, owner: owner, legacyCertificates: legacy, now: { now })
    }

    var merchantSigningKey: UnionPay.SigningKey { try! UnionPay.SigningKey(privateKey: merchantKey, certificate: merchant) }

    /// `fields` signed as UnionPay signs its answers and notifications: with `certificate`'s key,
    /// carrying `certificate` as `signPubKeyCert` (5.1.0).
    func signedByUnionPay(
        _ fields: [String: String], certificate: X509Certificate? = nil, key: RSAPrivateKey? = nil, version: UnionPay.Version = .v5_1_0
    ) throws -> [String: String] {
        let certificate = certificate ?? unionPay
        var signed = fields
        signed["version"] = version.rawValue
        signed["signMethod"] = "01"
        signed["certId"] = certificate.serialNumberDecimal
        if version == .v5_1_0 { signed["signPubKeyCert"] = certificate.pemRepresentation.replacingOccurrences(of: "\n", with: "\r\n") }
        signed["signature"] = try UnionPay.Signer.signature(for: signed, privateKey: key ?? unionPayKey, version: version)
        return signed
    }
}
