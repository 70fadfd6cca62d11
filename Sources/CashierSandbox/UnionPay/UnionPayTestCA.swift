public import CashierCrypto
public import Foundation

/// The sandbox UnionPay's own test PKI, generated, never copied: a root and a middle certificate
/// (standing in for CFCA's), the gateway's signing certificate, whose CN names UnionPay as
/// UnionPay's do (`041@Z…@中国银联股份有限公司@00000001`), and a test merchant's signing
/// certificate and key. Its root and middle are what a client configures to verify the sandbox
/// (`unionpay_root_cert`, `unionpay_middle_cert`); no real client trusts them.
public struct UnionPayTestCA: Sendable {
    public let root: X509Certificate
    public let middle: X509Certificate
    /// The gateway's signing certificate (`signPubKeyCert` in every answer and notification).
    public let gatewayCertificate: X509Certificate
    let gatewayKey: RSAPrivateKey
    /// The test merchant's `merId`.
    public let merchantID: String
    /// The test merchant's signing key and certificate (what a `.pfx` holds).
    public let merchantKey: RSAPrivateKey
    public let merchantCertificate: X509Certificate
    private let middleKey: RSAPrivateKey

    /// The CN of the gateway's signing certificate.
    public static let gatewayCN = "041@Z2026-01-01@中国银联股份有限公司@00000001"
    /// The test merchant's `merId` (a 15-digit number of the sandbox's own).
    public static let testMerchantID = "777290058120001"

    /// One CA for the whole process: four RSA keys cost over a second of CPU, and test runs start
    /// dozens of sandboxes.
    public static let shared = try! UnionPayTestCA()

    /// A fresh CA with fresh keys.
    public init(merchantID: String = testMerchantID, now: Date = Date()) throws {
        let rootKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        middleKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        gatewayKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        merchantKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        self.merchantID = merchantID
        let year: TimeInterval = 365 * 86_400
        root = try CertificateBuilder(
            subject: [("C", "CN"), ("O", "Cashier Sandbox"), ("CN", "Cashier Sandbox UnionPay TEST Root")], serialNumber: 1,
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(20 * year), isCertificateAuthority: true
        ).issue(publicKey: .rsa(rootKey.publicKey), signedBy: .rsa(rootKey))
        middle = try CertificateBuilder(
            subject: [("C", "CN"), ("O", "Cashier Sandbox"), ("CN", "Cashier Sandbox UnionPay TEST Middle")], serialNumber: 2,
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(10 * year), isCertificateAuthority: true
        ).issue(publicKey: .rsa(middleKey.publicKey), issuer: root, signedBy: .rsa(rootKey))
        gatewayCertificate = try Self.leaf(
            Self.gatewayCN, gatewayKey, serial: 0x10_2030_4051, middle: middle, middleKey: middleKey, now: now)
        merchantCertificate = try Self.leaf(
            "041@Z2026-01-01@\(merchantID):SIGN@00000006", merchantKey, serial: 0x10_0265_3215, middle: middle, middleKey: middleKey,
            now: now)
    }

    /// Issues a merchant signing certificate for `key` under the middle certificate, for another
    /// merchant the sandbox is told about (``UnionPaySandbox/register(merchantID:certificate:)``).
    public func issueMerchantCertificate(merchantID: String, key: RSAPublicKey, serial: UInt64) throws -> X509Certificate {
        try CertificateBuilder(
            subject: [("C", "CN"), ("O", "China UnionPay Sandbox"), ("CN", "041@Z2026-01-01@\(merchantID):SIGN@00000006")],
            serialNumber: serial, notValidBefore: Date(timeIntervalSinceNow: -86_400),
            notValidAfter: Date(timeIntervalSinceNow: 2 * 365 * 86_400)
        ).issue(publicKey: .rsa(key), issuer: middle, signedBy: .rsa(middleKey))
    }

    private static func leaf(
        _ cn: String, _ key: RSAPrivateKey, serial: UInt64, middle: X509Certificate, middleKey: RSAPrivateKey, now: Date
    ) throws -> X509Certificate {
        try CertificateBuilder(
            subject: [("C", "CN"), ("O", "China UnionPay Sandbox"), ("OU", "00000000000"), ("CN", cn)], serialNumber: serial,
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(2 * 365 * 86_400)
        ).issue(publicKey: .rsa(key.publicKey), issuer: middle, signedBy: .rsa(middleKey))
    }

    /// A certificate as UnionPay writes it into `signPubKeyCert`: PEM with CRLF line ends.
    static func crlfPEM(_ certificate: X509Certificate) -> String {
        certificate.pemRepresentation.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\n", with: "\r\n")
    }
}
