import Cashier
import CashierCrypto
import Foundation
import UnionPay

extension ConfigurationFile {
    /// The keys `unionpay` takes.
    static let unionpayKeys = Shape.keys(
        [
            "mer_id", "sign_pfx_file", "sign_cert_file", "root_cert_file", "middle_cert_file", "environment", "gateway_url", "file_url",
            "checkout_pay_url",
        ], secrets: ["sign_pfx_password", "sign_key"])

    /// `unionpay`: the merchant (`mer_id`), its signing identity — `sign_pfx_file` with
    /// `sign_pfx_password_env` / `_file` (the `.pfx` UnionPay's CA issued; its RC2-encrypted
    /// certificate bag is read), or `sign_key_env` / `_file` with `sign_cert_file` (PEM) —
    /// `root_cert_file` and `middle_cert_file` (UnionPay's `acp_prod_root.cer` and
    /// `acp_prod_middle.cer`, PEM or DER), `environment` (`production`, the default, or `test`),
    /// and `gateway_url` / `file_url` to point elsewhere (the sandbox).
    static func unionpay(_ object: Object, _ reader: Reader) throws -> MerchantConfiguration.UnionPaySettings {
        let path = "unionpay."
        let merchantID = try reader.string(object, "mer_id", path)!
        guard (1...32).contains(merchantID.utf8.count), merchantID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x26 }) else {
            throw Problem(path: path + "mer_id", reason: "must be the merchant number UnionPay gave you (merId, 15 letters and digits)")
        }
        let environment: MerchantConfiguration.UnionPaySettings.Environment
        switch try reader.string(object, "environment", path, required: false) {
        case nil, "production": environment = .production
        case "test": environment = .test
        case let other?: throw Problem(path: path + "environment", reason: "'\(other)' is not \"production\" or \"test\"")
        }
        let signingKey = try unionpaySigningKey(object, reader, path: path)
        let verifier: UnionPay.Verifier
        do {
            verifier = try UnionPay.Verifier(
                root: try certificate(object, "root_cert_file", reader, path: path),
                middle: try certificate(object, "middle_cert_file", reader, path: path),
                owner: environment == .production ? .unionPay : .unionPayOrTestEnvironment)
        } catch let error as PaymentError {
            throw Problem(path: path + "root_cert_file", reason: error.message)
        }
        let defaults: UnionPay.Endpoints = environment == .production ? .production : .test
        let endpoints = UnionPay.Endpoints(
            gateway: try reader.url(object, "gateway_url", path) ?? defaults.gateway,
            fileDownload: try reader.url(object, "file_url", path) ?? defaults.fileDownload)
        return MerchantConfiguration.UnionPaySettings(
            merchantID: merchantID, signingKey: signingKey, verifier: verifier, environment: environment, endpoints: endpoints,
            checkoutPayURL: try reader.url(object, "checkout_pay_url", path))
    }

    /// The `.pfx` and its password, or the PEM key and certificate.
    static func unionpaySigningKey(_ object: Object, _ reader: Reader, path: String) throws -> UnionPay.SigningKey {
        let pfx = try reader.string(object, "sign_pfx_file", path, required: false)
        let certificateFile = try reader.string(object, "sign_cert_file", path, required: false)
        let hasKey = ["sign_key", "sign_key_env", "sign_key_file"].contains { object[$0] != nil }
        switch (pfx, certificateFile, hasKey) {
        case (let pfx?, nil, false):
            let password = try reader.secret(object, "sign_pfx_password", path)
            do {
                return try UnionPay.SigningKey(pkcs12: try bytes(pfx, reader, path: path + "sign_pfx_file"), password: password)
            } catch let error as PaymentError {
                throw Problem(
                    path: path + "sign_pfx_file", reason: error.message + " (check sign_pfx_password_env or sign_pfx_password_file)")
            }
        case (nil, let certificateFile?, true):
            let key = try reader.secret(object, "sign_key", path)
            do {
                return try UnionPay.SigningKey(
                    privateKeyPEM: key, certificatePEM: try reader.contents(certificateFile, path + "sign_cert_file"))
            } catch let error as PaymentError {
                throw Problem(path: path + "sign_key", reason: error.message)
            }
        case (nil, nil, false):
            throw Problem(
                path: path + "sign_pfx_file",
                reason: "is missing: give the signing .pfx (sign_pfx_file and sign_pfx_password_env), or sign_key_env / sign_key_file "
                    + "with sign_cert_file (PEM)")
        default:
            throw Problem(
                path: path + "sign_pfx_file",
                reason: "give either sign_pfx_file (with sign_pfx_password_env or _file) or sign_key_env / _file with sign_cert_file, "
                    + "not parts of both")
        }
    }

    /// A certificate file, PEM or DER.
    static func certificate(_ object: Object, _ key: String, _ reader: Reader, path: String) throws -> X509Certificate {
        let file = try reader.string(object, key, path)!
        let data = try bytes(file, reader, path: path + key)
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN"),
            let certificate = try? X509Certificate(pemRepresentation: text)
        {
            return certificate
        }
        guard let certificate = try? X509Certificate(derRepresentation: data) else {
            throw Problem(path: path + key, reason: "is not an X.509 certificate (PEM or DER)")
        }
        return certificate
    }

    /// A file's bytes, for the binary ones (`.pfx`, DER).
    static func bytes(_ file: String, _ reader: Reader, path: String) throws -> Data {
        let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : reader.folder.appendingPathComponent(file)
        do {
            return try UserFile.contents(url.path)
        } catch {
            throw Problem(path: path, reason: error.description)
        }
    }
}
