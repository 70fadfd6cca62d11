import Cashier
import CashierCrypto
import Foundation
import WeChatPay

/// `cashier wechat …`: WeChat Pay signing and verification from the shell.
enum WeChatCommands {
    static let command = Command(
        name: "wechat",
        summary: "WeChat Pay: sign parameters, verify notifications, decrypt refund notifications.",
        subcommands: [sign, verifyNotify, decryptRefund, v3]
    )

    static let signTypeOption = Command.Option.value("sign-type", "MD5|HMAC-SHA256", "The sign type (default MD5).")

    static func signType(_ arguments: ParsedArguments) throws -> WeChatPay.V2.SignType {
        guard let text = arguments.value("sign-type") else { return .md5 }
        guard let type = WeChatPay.V2.SignType(field: text) else {
            throw CommandFailure("--sign-type must be MD5 or HMAC-SHA256, not '\(text)'", status: 2)
        }
        return type
    }

    static let sign = Command(
        name: "sign",
        summary: "Sign v2 parameters with the API key and print the signature.",
        discussion: "stdin: a JSON object of parameters (strings or integers). `sign` and empty values are ignored.",
        options: [.secret("key", "The merchant API key.", required: true), signTypeOption]
    ) { arguments, io in
        let parameters = try CommandInput.parameters(io)
        io.write(
            WeChatPay.V2.Signer(apiKey: try arguments.requiredSecret("key")).signature(for: parameters, type: try signType(arguments))
                + "\n")
        return 0
    }

    static let verifyNotify = Command(
        name: "verify-notify",
        summary: "Verify a v2 payment notification and print its fields as JSON.",
        discussion: """
            stdin: the notification XML. Exit 0 printing the fields, or exit 1 with a one-line reason.
            With --appid and --mch-id the notification must also be addressed to that merchant.
            """,
        options: [
            .secret("key", "The merchant API key.", required: true), signTypeOption,
            .value("appid", "APPID", "Also require this appid."), .value("mch-id", "MCH_ID", "Also require this mch_id."),
        ]
    ) { arguments, io in
        let document = try WeChatPay.V2.XMLDocument(parsing: CommandInput.bytes(io))
        try document.verifySignature(
            signer: WeChatPay.V2.Signer(apiKey: try arguments.requiredSecret("key")), type: try signType(arguments))
        if let appID = arguments.value("appid"), document["appid"] != appID {
            throw CommandFailure("appid is not \(appID)")
        }
        if let mchID = arguments.value("mch-id"), document["mch_id"] != mchID {
            throw CommandFailure("mch_id is not \(mchID)")
        }
        try CommandInput.printJSON(document.dictionary, io)
        return 0
    }

    static let decryptRefund = Command(
        name: "decrypt-refund",
        summary: "Decrypt a v2 refund notification's req_info and print its fields as JSON.",
        discussion: "stdin: the req_info value (base64).",
        options: [.secret("key", "The merchant API key.", required: true)]
    ) { arguments, io in
        let document = try WeChatPay.V2.RefundNotification.decrypt(
            reqInfo: CommandInput.text(io), apiKey: try arguments.requiredSecret("key"))
        try CommandInput.printJSON(document.dictionary, io)
        return 0
    }

    static let v3 = Command(
        name: "v3",
        summary: "WeChat Pay API v3 tools.",
        subcommands: [v3VerifyNotify]
    )

    static let v3VerifyNotify = Command(
        name: "verify-notify",
        summary: "Verify a v3 notification and print its decrypted resource JSON.",
        discussion: """
            stdin: the raw notification body. Give the platform certificate (certificate mode) or the
            WeChat Pay public key (public-key mode, serial PUB_KEY_ID_…) as a file path or PEM text.
            Exit 0 printing the resource, or exit 1 with a one-line reason.
            """,
        options: [
            .secret("api-v3-key", "The APIv3 key.", required: true),
            .value("platform-cert", "PEM", "The platform certificate."),
            .value("public-key", "PEM", "The WeChat Pay public key."),
            .value("serial", "S", "Wechatpay-Serial.", required: true),
            .value("timestamp", "T", "Wechatpay-Timestamp.", required: true),
            .value("nonce", "N", "Wechatpay-Nonce.", required: true),
            .value("signature", "SIG", "Wechatpay-Signature.", required: true),
            .value("now", "EPOCH", "Check the 5-minute window against this time (seconds since 1970) instead of the clock."),
        ]
    ) { arguments, io in
        let keys = WeChatPay.V3.PlatformKeys()
        switch (arguments.value("platform-cert"), arguments.value("public-key")) {
        case (let certificate?, nil):
            try keys.add(certificate: X509Certificate(pemRepresentation: CommandInput.pem(certificate, option: "platform-cert")))
        case (nil, let publicKey?):
            keys.add(
                publicKey: try RSAPublicKey(pemRepresentation: CommandInput.pem(publicKey, option: "public-key")),
                id: arguments.required("serial"))
        default:
            throw CommandFailure("give exactly one of --platform-cert and --public-key", status: 2)
        }
        var now = Date()
        if let text = arguments.value("now") {
            guard let seconds = Int64(text) else { throw CommandFailure("--now must be seconds since 1970", status: 2) }
            now = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        let headers = WeChatPay.V3.SignatureHeaders(
            timestamp: arguments.required("timestamp"), nonce: arguments.required("nonce"), signature: arguments.required("signature"),
            serial: arguments.required("serial"))
        let notification = try WeChatPay.V3.Notification.open(
            body: CommandInput.bytes(io), headers: headers, keys: keys, apiV3Key: try arguments.requiredSecret("api-v3-key"), now: now)
        io.write(String(decoding: notification.plaintext, as: UTF8.self) + "\n")
        return 0
    }
}
