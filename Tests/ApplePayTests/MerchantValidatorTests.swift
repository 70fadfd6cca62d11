import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Merchant validation over mutual TLS against a local stand-in for Apple's endpoint
/// (scripts/test/apple_merchant_validation_server.py), with certificates from CertificateBuilder.
@Suite struct MerchantValidatorTests {
    @Test func onlyAppleHostsAreContacted() throws {
        let validator = ApplePay.MerchantValidator(
            merchantIdentifier: "merchant.com.example", displayName: "Example", domain: "shop.example.com", transport: URLSessionTransport()
        )
        for good in [
            "https://apple-pay-gateway.apple.com/paymentservices/startSession",
            "https://cn-apple-pay-gateway.apple.com/paymentservices/paymentSession",
            "https://apple-pay-gateway-nc-pod3.apple.com/paymentservices/startSession",
        ] {
            try validator.check(validationURL: URL(string: good)!)
        }
        for bad in [
            "http://apple-pay-gateway.apple.com/x", "https://apple-pay-gateway.apple.com.evil.example/x", "https://evil.example/x",
            "https://user@apple-pay-gateway.apple.com/x", "https://apple-pay-gateway.apple.com:8443/x", "https://127.0.0.1/x",
        ] {
            #expect(throws: PaymentError.self, "\(bad)") { try validator.check(validationURL: URL(string: bad)!) }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func mutualTLSSessionAndRefusal() async throws {
        let folder = Scratch.url("apple-mv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ text: String, _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let caKey = try P256PrivateKey()
        let ca = try CertificateBuilder(subject: [("CN", "Validation Test CA")], serialNumber: 1, isCertificateAuthority: true)
            .issue(publicKey: .p256(caKey.publicKey), signedBy: .p256(caKey))
        let serverKey = try P256PrivateKey()
        let server = try CertificateBuilder(
            subject: [("CN", "127.0.0.1")], serialNumber: 2,
            extensions: [X509Extension(oid: "2.5.29.17", isCritical: false, value: [0x30, 0x06, 0x87, 0x04, 0x7F, 0x00, 0x00, 0x01])]
        ).issue(publicKey: .p256(serverKey.publicKey), issuer: ca, signedBy: .p256(caKey))
        let identityKey = try P256PrivateKey()
        let identity = try CertificateBuilder(
            subject: [("UID", "merchant.com.example"), ("CN", "Merchant ID: merchant.com.example")], serialNumber: 3
        )
        .issue(publicKey: .p256(identityKey.publicKey), issuer: ca, signedBy: .p256(caKey))
        let caPath = try write(ca.pemRepresentation, "ca.pem")
        let output = Pipe()
        let input = Pipe()
        let process = try ChildProcess(
            "/usr/bin/python3",
            [
                packageRoot.appendingPathComponent("scripts/test/apple_merchant_validation_server.py").path,
                try write(server.pemRepresentation, "server.pem"), try write(serverKey.pemRepresentation, "server.key"), caPath,
            ],
            stdin: .pipe(input), stdout: .pipe(output), stderr: .null)
        // Closing its stdin stops the server.
        defer {
            try? input.fileHandleForWriting.close()
            process.stopForGood()
        }
        let portLine = try await onOwnThread { String(decoding: try output.fileHandleForReading.readRetrying(), as: UTF8.self) }
        let port = try #require(Int(portLine.trimmingCharacters(in: .whitespacesAndNewlines)))
        let url = URL(string: "https://127.0.0.1:\(port)/paymentservices/startSession")!

        let transport = CurlTransport(
            clientCertificate: .init(
                certificatePath: try write(identity.pemRepresentation, "identity.pem"),
                keyPath: try write(identityKey.pemRepresentation, "identity.key")),
            trustedCAPath: caPath)
        let validator = ApplePay.MerchantValidator(
            merchantIdentifier: "merchant.com.example", displayName: "Example Coffee", domain: "shop.example.com", transport: transport,
            allowedHosts: ["127.0.0.1:\(port)"])
        let session = try await validator.merchantSession(validationURL: url)
        let object = try #require(try JSONSerialization.jsonObject(with: session) as? [String: Any])
        #expect(object["merchantSessionIdentifier"] as? String == "SSH_SANDBOX")
        let echo = object["echo"] as? [String: String]
        #expect(
            echo == [
                "merchantIdentifier": "merchant.com.example", "displayName": "Example Coffee", "initiative": "web",
                "initiativeContext": "shop.example.com",
            ])
        #expect((object["client"] as? [String: String])?["commonName"] == "Merchant ID: merchant.com.example")

        let refused = ApplePay.MerchantValidator(
            merchantIdentifier: "merchant.refused", displayName: "x", domain: "shop.example.com", transport: transport,
            allowedHosts: ["127.0.0.1:\(port)"])
        let error = await #expect(throws: PaymentError.self) { try await refused.merchantSession(validationURL: url) }
        #expect(error?.code == .providerRejected && error?.message.contains("not registered") == true)
        // Without the identity certificate the TLS handshake itself is refused.
        let anonymous = ApplePay.MerchantValidator(
            merchantIdentifier: "merchant.com.example", displayName: "x", domain: "d", transport: CurlTransport(trustedCAPath: caPath),
            allowedHosts: ["127.0.0.1:\(port)"])
        await #expect(throws: (any Error).self) { try await anonymous.merchantSession(validationURL: url) }
    }
}
