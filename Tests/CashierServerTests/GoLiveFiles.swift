import CashierCrypto
import CashierSandboxMode
import CashierServer
import Foundation
import TestSupport

/// A configuration file as a merchant writes one for `cashier serve --config`, with its key files
/// (0600) beside it, for the sandbox's merchant: WeChat Pay v2 and v3 (certificate mode: the
/// platform certificates are downloaded) and Alipay, all at the in-process sandbox.
struct GoLiveFiles {
    let folder: URL
    var config: [String: Any]
    var configFile: URL { folder.appendingPathComponent("cashier.json") }

    init(mode: SandboxMode, publicBaseURL: String = "https://pay.example.com", database: String? = nil) throws {
        folder = try Scratch.newFolder("golive")
        let configuration = mode.configuration
        let sandbox = mode.sandbox
        guard let v3 = configuration.wechatV3, let alipay = configuration.alipay else { throw CocoaError(.featureUnsupported) }
        config = [
            "public_base_url": publicBaseURL, "publishable_key": configuration.publishableKey,
            "secret_key_file": "keys/secret_key", "database": database ?? folder.appendingPathComponent("cashier.db").path,
            "wechat": [
                "appid": mode.wechatMerchant.appID, "mch_id": mode.wechatMerchant.mchID, "api_key_file": "keys/wechat_api_key",
                "base_url": sandbox.wechatV2URL.absoluteString,
            ],
            "wechat_v3": [
                "appid": v3.appID, "mch_id": v3.merchant.mchID, "certificate_serial": v3.merchant.certificateSerial,
                "private_key_file": "keys/apiclient_key.pem", "api_v3_key_file": "keys/api_v3_key",
                "base_url": sandbox.wechatV3URL.absoluteString,
            ],
            "alipay": [
                "app_id": alipay.appID, "private_key_file": "keys/alipay_app.pem", "alipay_public_key_file": "keys/alipay_public.pem",
                "gateway": sandbox.alipayGatewayURL.absoluteString,
            ],
            "jobs": ["query_interval_seconds": 3600],
        ]
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("keys"), withIntermediateDirectories: true)
        try key("secret_key", configuration.secretKey)
        try key("wechat_api_key", mode.wechatMerchant.apiKey)
        try key("apiclient_key.pem", v3.merchant.privateKey.pemRepresentation)
        try key("api_v3_key", v3.merchant.apiV3Key)
        try key("alipay_app.pem", alipay.privateKey.pemRepresentation)
        try key("alipay_public.pem", alipay.alipayPublicKey.pemRepresentation, mode: 0o644)
        try write()
    }

    /// Writes `text` to `keys/name` with `mode` (0600 unless said).
    func key(_ name: String, _ text: String, mode: Int = 0o600) throws {
        let url = folder.appendingPathComponent("keys/" + name)
        try? FileManager.default.removeItem(at: url)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    /// Writes a certificate `name` for `publicKey`, valid until `days` from now (self-signed by `signer`).
    func certificate(_ name: String, days: Double, publicKey: CertificatePublicKey, signer: CertificateKey, serial: UInt64 = 7)
        throws -> X509Certificate
    {
        let certificate = try CertificateBuilder(
            subject: [("CN", name)], serialNumber: serial, notValidAfter: Date(timeIntervalSinceNow: days * 86_400)
        ).issue(publicKey: publicKey, signedBy: signer)
        try key(name, certificate.pemRepresentation, mode: 0o644)
        return certificate
    }

    /// Writes the configuration file.
    func write() throws {
        let data = try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys, .prettyPrinted])
        let temporary = folder.appendingPathComponent("cashier.json.tmp")
        try data.write(to: temporary)
        // Renamed into place, as an editor saves: a reload never reads half a file.
        guard rename(temporary.path, configFile.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The file as `cashier serve` reads it.
    func parsed() throws -> ConfigurationFile { try ConfigurationFile(contentsOf: configFile, environment: [:]) }

    /// Sets `value` at `path` (`["wechat_v3", "certificate_serial"]`) and writes the file.
    mutating func set(_ path: [String], _ value: Any?) throws {
        func apply(_ object: [String: Any], _ path: ArraySlice<String>) -> [String: Any] {
            var object = object
            guard let first = path.first else { return object }
            if path.count == 1 {
                object[first] = value
            } else {
                object[first] = apply(object[first] as? [String: Any] ?? [:], path.dropFirst())
            }
            return object
        }
        config = apply(config, path[...])
        try write()
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
