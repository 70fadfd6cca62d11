import Alipay
import Cashier
import CashierCrypto
import Foundation

/// `cashier alipay …`: Alipay signing and verification from the shell.
enum AlipayCommands {
    static let command = Command(
        name: "alipay",
        summary: "Alipay: sign parameters and order strings, verify notifications and sync results.",
        subcommands: [sign, verifyNotify, verifyResult, orderString]
    )

    static func signType(_ arguments: ParsedArguments) throws -> Alipay.SignType {
        guard let text = arguments.value("sign-type") else { return .rsa2 }
        guard let type = Alipay.SignType(rawValue: text.uppercased()) else {
            throw CommandFailure("--sign-type must be RSA2 or RSA, not '\(text)'", status: 2)
        }
        return type
    }

    static func privateKey(_ arguments: ParsedArguments) throws -> RSAPrivateKey {
        do {
            return try RSAPrivateKey(pemRepresentation: try arguments.requiredSecret("private-key"))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("--private-key is not a readable file, PEM text or bare base64 key (\(error))", status: 2)
        }
    }

    static func publicKey(_ arguments: ParsedArguments) throws -> RSAPublicKey {
        let value = arguments.required("public-key")
        do {
            return try RSAPublicKey(pemRepresentation: CommandInput.keyText(value, option: "public-key"))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("--public-key is not a readable file, PEM text or bare base64 key (\(error))", status: 2)
        }
    }

    static let sign = Command(
        name: "sign",
        summary: "Sign Alipay parameters with the app private key and print the base64 signature.",
        discussion: "stdin: a JSON object of parameters. `sign` and empty values are ignored; `sign_type` is kept, as for requests.",
        options: [
            .secret("private-key", "The app private key: PEM, or bare base64 as the Alipay console shows it.", required: true),
            .value("sign-type", "RSA2|RSA", "The sign type (default RSA2)."),
        ]
    ) { arguments, io in
        let parameters = try CommandInput.parameters(io)
        io.write(try Alipay.Signer(privateKey: privateKey(arguments)).signature(for: parameters, type: signType(arguments)) + "\n")
        return 0
    }

    static let verifyNotify = Command(
        name: "verify-notify",
        summary: "Verify an Alipay async notification and print its fields as JSON.",
        discussion: "stdin: the form-urlencoded body. Exit 0 printing the fields, or exit 1 with a one-line reason.",
        options: [.value("public-key", "PEM", "Alipay's public key (file path, PEM text or bare base64).", required: true)]
    ) { arguments, io in
        let fields = try Alipay.FormBody.fields(CommandInput.bytes(io))
        try Alipay.Notification.verifySignature(
            fields, publicKey: publicKey(arguments), signType: Alipay.SignType(rawValue: fields["sign_type"] ?? "RSA2") ?? .rsa2)
        try CommandInput.printJSON(fields.dictionary, io)
        return 0
    }

    static let verifyResult = Command(
        name: "verify-result",
        summary: "Verify an app sync result (JSON) or a legacy result string.",
        discussion: "stdin: the `result` the Alipay SDK returned. Exit 0 printing the verified content, or exit 1 with a one-line reason.",
        options: [.value("public-key", "PEM", "Alipay's public key (file path, PEM text or bare base64).", required: true)]
    ) { arguments, io in
        io.write(try Alipay.SyncResult.verify(CommandInput.text(io), publicKey: publicKey(arguments)) + "\n")
        return 0
    }

    static let orderString = Command(
        name: "order-string",
        summary: "Print the signed order string for the Alipay SDK (alipay.trade.app.pay).",
        discussion: "stdin: biz_content JSON (out_trade_no, total_amount, subject, product_code QUICK_MSECURITY_PAY, …), signed as given.",
        options: [
            .value("app-id", "ID", "The Alipay app id.", required: true),
            .secret("private-key", "The app private key: PEM, or bare base64 as the Alipay console shows it.", required: true),
            .value("notify-url", "URL", "Where Alipay posts the async notification.", required: true),
        ]
    ) { arguments, io in
        let biz = CommandInput.text(io)
        guard (try? JSONSerialization.jsonObject(with: Data(biz.utf8))) is [String: Any] else {
            throw CommandFailure("stdin must be the biz_content JSON object")
        }
        io.write(
            try Alipay.OrderString.make(
                appID: arguments.required("app-id"), signer: Alipay.Signer(privateKey: privateKey(arguments)),
                notifyURL: arguments.required("notify-url"), bizContent: biz) + "\n")
        return 0
    }
}
