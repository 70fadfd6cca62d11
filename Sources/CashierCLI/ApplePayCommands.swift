import ApplePay
import Cashier
import CashierCrypto
package import Foundation

/// `cashier applepay …`: verify and decrypt tokens, check payment requests.
package enum ApplePayCommands {
    static let command = Command(
        name: "applepay",
        summary: "Apple Pay: verify and decrypt payment tokens, check payment requests.",
        subcommands: [decrypt, mint, request]
    )

    package static func date(_ text: String, option: String) throws -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw CommandFailure("--\(option) must be an ISO 8601 time such as 2014-10-27T19:51:43Z, not '\(text)'", status: 2)
        }
        return date
    }

    static let decrypt = Command(
        name: "decrypt",
        summary: "Verify an Apple Pay token, then decrypt it and print the payment data as JSON.",
        discussion: """
            Checks, in order: signature, chain (to Apple Root CA - G3 or --root-ca), leaf OID, intermediate OID, signing time \
            (within --window seconds of --at or now), applicationData (when given), key hash, decryption. Exit 0 printing the \
            payload with Apple's field names, or exit 1 with one line naming the failed check.
            """,
        options: [
            .value("token", "FILE", "The token: a PKPayment JSON or its paymentData.", required: true),
            .secret("merchant-key", "The payment processing private key (PEM).", required: true),
            .value("merchant-cert", "PEM", "The payment processing certificate (file or PEM text).", required: true),
            .value("root-ca", "PEM", "Trust this root instead of Apple Root CA - G3 (tests, the sandbox)."),
            .value("at", "ISO8601", "Check as of this time instead of now (recorded tokens)."),
            .value("window", "SECONDS", "How far the signing time may be from --at/now (default 300)."),
            .value("application-data", "HEX", "The request's applicationData, which the token must carry the hash of."),
        ]
    ) { arguments, io in
        let tokenData: Data
        do {
            tokenData = try UserFile.contents(arguments.required("token"))
        } catch {
            throw CommandFailure("--token: \(error)", status: 2)
        }
        let merchantKey: ApplePay.MerchantKey
        let anchors: [X509Certificate]?
        do {
            merchantKey = try ApplePay.MerchantKey(
                certificatePEM: try CommandInput.pem(arguments.required("merchant-cert"), option: "merchant-cert"),
                privateKeyPEM: try arguments.requiredSecret("merchant-key"))
            anchors = try arguments.value("root-ca").map {
                try X509Certificate.certificates(pemRepresentation: CommandInput.pem($0, option: "root-ca"))
            }
        } catch let error as PaymentError {
            throw CommandFailure(error.message, status: 2)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("--root-ca is not a PEM certificate", status: 2)
        }
        let at = try arguments.value("at").map { try date($0, option: "at") }
        guard let window = TimeInterval(arguments.value("window") ?? "300"), window >= 0 else {
            throw CommandFailure("--window must be a number of seconds", status: 2)
        }
        let applicationData = try arguments.value("application-data").map { text in
            guard let bytes = try? Hex.decode(text) else { throw CommandFailure("--application-data must be hex", status: 2) }
            return bytes
        }
        let verifier = try ApplePay.TokenVerifier(trustAnchors: anchors, window: window, clock: { at ?? Date() })
        let token = try ApplePay.PaymentToken(json: tokenData)
        let payment = try ApplePay.TokenDecrypter(merchantKeys: [merchantKey], verifier: verifier)
            .decrypt(token, applicationData: applicationData)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(payment))
        try CommandInput.printJSON(json, io)
        return 0
    }

    static let request = Command(
        name: "request",
        summary: "Check an Apple Pay payment request (Apple Pay JS JSON) and print it with its total.",
        discussion: """
            stdin: an ApplePayPaymentRequest. Checks the networks, country and currency codes, 3-D Secure (and EMV for China), \
            that total.amount is the sum of lineItems, shipping method identifiers and amounts. Exit 0 printing the request as \
            Cashier would send it, or exit 1 with one line saying which rule is broken.
            """
    ) { _, io in
        let request = try ApplePay.PaymentRequest(json: Data(CommandInput.bytes(io)))
        try CommandInput.printJSON(try request.jsonObject(), io)
        return 0
    }

    /// Minting sandbox tokens moved with the simulators: `cashier-sandbox applepay mint`.
    static let mint = Command.moved("mint", to: "minting sandbox tokens is now 'cashier-sandbox applepay mint'")
}
