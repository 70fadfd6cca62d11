import ApplePay
import Cashier
import CashierCLI
import CashierCrypto
import CashierSandbox
import Foundation

/// `cashier-sandbox applepay mint`: Apple Pay tokens from a test CA, for trying the decrypter and
/// a processor offline.
enum SandboxApplePayCommands {
    static let command = Command(
        name: "applepay",
        summary: "Apple Pay: mint sandbox tokens (check them with `cashier applepay decrypt`).",
        subcommands: [mint]
    )

    static let mint = Command(
        name: "mint",
        summary: "Mint a sandbox Apple Pay token (and the certificates to check it) into a folder.",
        discussion: """
            Writes token.json (a PKPayment), merchant-cert.pem, merchant-key.pem and root-ca.pem (a fresh test CA, never Apple's) \
            into --out, and prints the token's path. Check it with `cashier applepay decrypt --root-ca DIR/root-ca.pem …`.
            """,
        options: [
            .value("out", "DIR", "The folder to write into (created if missing).", required: true),
            .value("amount", "DECIMAL", "The amount, e.g. 12.75 (default 1.00)."),
            .value("currency", "CODE", "ISO 4217 code (default CNY)."),
            .value("merchant-id", "ID", "The merchant identifier (default merchant.com.example.cashier)."),
            .value("application-data", "HEX", "applicationData to bind the token to."),
            .value("signed-at", "ISO8601", "The signing time (default now)."),
            .flag("rsa", "Mint RSA_v1 instead of EC_v1."),
        ]
    ) { arguments, io in
        let amount: Money
        do {
            amount = try Money(
                decimal: arguments.value("amount") ?? "1.00", currency: try Currency(code: arguments.value("currency") ?? "CNY"))
        } catch {
            throw CommandFailure("--amount/--currency: \(error)", status: 2)
        }
        guard amount.minorUnits >= 0 else {
            throw CommandFailure("--amount must not be negative: an Apple Pay token authorises what the payer pays", status: 2)
        }
        let applicationData = try arguments.value("application-data").map { text in
            guard let bytes = try? Hex.decode(text) else { throw CommandFailure("--application-data must be hex", status: 2) }
            return bytes
        }
        let signedAt = try arguments.value("signed-at").map { try ApplePayCommands.date($0, option: "signed-at") } ?? Date()
        let folder = URL(fileURLWithPath: arguments.required("out"))
        let ca = try ApplePayTestCA()
        let merchant = try ca.issueMerchantKey(
            merchantIdentifier: arguments.value("merchant-id") ?? "merchant.com.example.cashier", rsa: arguments.flag("rsa"))
        let token = try ApplePayTokenMinter(ca: ca).mint(
            for: merchant, amount: amount, applicationData: applicationData, signedAt: signedAt)
        let keyPEM: String
        switch merchant.privateKey {
        case .p256(let key): keyPEM = key.pemRepresentation
        case .rsa(let key): keyPEM = key.pemRepresentation
        }
        let payment: [String: Any] = [
            "token": [
                "paymentData": try JSONSerialization.jsonObject(with: JSONEncoder().encode(token)),
                "paymentMethod": ["network": "Visa", "type": "debit", "displayName": "Visa 1111"],
                "transactionIdentifier": token.header.transactionId.uppercased(),
            ]
        ]
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try JSONSerialization.data(withJSONObject: payment, options: [.sortedKeys]).write(
                to: folder.appendingPathComponent("token.json"))
            try merchant.certificate.pemRepresentation.write(
                to: folder.appendingPathComponent("merchant-cert.pem"), atomically: true, encoding: .utf8)
            try PrivateFile.write(Data(keyPEM.utf8), to: folder.appendingPathComponent("merchant-key.pem").path)
            try ca.root.pemRepresentation.write(to: folder.appendingPathComponent("root-ca.pem"), atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure("--out: cannot write into \(folder.path) (\(error.localizedDescription))", status: 2)
        }
        io.write(folder.appendingPathComponent("token.json").path + "\n")
        return 0
    }
}
