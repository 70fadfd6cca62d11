import Alipay
import Cashier
import CashierCrypto
import CashierCurl
import Foundation
import WeChatPay

extension ConfigurationFile {
    /// WeChat Pay API v2 credentials at `path` (`wechat.`, `service_provider.wechat.`).
    static func wechat(_ wechat: Object, _ reader: Reader, path: String) throws -> MerchantConfiguration.WeChat {
        let apiKey = try reader.secret(wechat, "api_key", path)
        guard apiKey.utf8.count == 32 else {
            throw Problem(path: path + "api_key", reason: "must be the 32-character API key from the merchant platform")
        }
        // Refunds need the API certificate (apiclient_cert.pem / apiclient_key.pem), read by libcurl.
        var mutualTLS: CurlTransport?
        switch (
            try reader.string(wechat, "api_certificate_file", path, required: false),
            try reader.string(wechat, "api_certificate_key_file", path, required: false)
        ) {
        case (nil, nil): break
        case (let certificate?, let key?):
            let paths = try [(certificate, "api_certificate_file"), (key, "api_certificate_key_file")].map { file, field in
                let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : reader.folder.appendingPathComponent(file)
                guard FileManager.default.isReadableFile(atPath: url.path) else {
                    throw Problem(path: path + field, reason: "\(url.path) \(UserFile.whyUnreadable(url.path))")
                }
                return url.path
            }
            mutualTLS = CurlTransport(clientCertificate: .init(certificatePath: paths[0], keyPath: paths[1]))
        default:
            throw Problem(path: path + "api_certificate_file", reason: "give both api_certificate_file and api_certificate_key_file")
        }
        var configuration = MerchantConfiguration.WeChat(
            merchant: WeChatPay.V2.Merchant(
                appID: try reader.string(wechat, "appid", path)!, mchID: try reader.string(wechat, "mch_id", path)!, apiKey: apiKey),
            baseURL: try reader.url(wechat, "base_url", path) ?? WeChatPay.V2.Client.productionURL, mutualTLSTransport: mutualTLS)
        configuration.crossBorderCurrencies = try reader.currencies(wechat, "cross_border_currencies", path)
        configuration.papayPlanID = try reader.string(wechat, "papay_plan_id", path, required: false)
        if let site = wechat["h5_site"] {
            guard let site = site.object else {
                throw Problem(path: path + "h5_site", reason: #"must be an object: {"url": "https://m.example.com", "name": "Example"}"#)
            }
            guard let url = try reader.url(site, "url", path + "h5_site.") else {
                throw Problem(path: path + "h5_site.url", reason: "is required")
            }
            configuration.h5Site = .init(url: url.absoluteString, name: try reader.string(site, "name", path + "h5_site.")!)
        }
        return configuration
    }

    /// Alipay credentials at `path` (`alipay.`, `service_provider.alipay.`).
    static func alipay(_ alipay: Object, _ reader: Reader, path: String) throws -> MerchantConfiguration.Alipay {
        let privateKey = try reader.rsaPrivateKey(
            alipay, "private_key", path, reason: "is not an RSA private key (PKCS#1, PKCS#8 or the console's base64)")
        guard let publicFile = try reader.string(alipay, "alipay_public_key_file", path),
            let alipayKey = try? RSAPublicKey(pemRepresentation: try reader.contents(publicFile, path + "alipay_public_key_file"))
        else { throw Problem(path: path + "alipay_public_key_file", reason: "is not Alipay's RSA public key") }
        return .init(
            appID: try reader.string(alipay, "app_id", path)!, privateKey: privateKey, alipayPublicKey: alipayKey,
            gateway: try reader.url(alipay, "gateway", path) ?? Alipay.Client.productionURL,
            sellerID: try reader.string(alipay, "seller_id", path, required: false))
    }

    /// `service_provider` (the platform's WeChat Pay service-provider and Alipay ISV credentials,
    /// shaped as `wechat`, `wechat_v3` and `alipay`) and `merchants` (the sub-merchants paid through
    /// them: `id`, `name`, `wechat_sub_mch_id`, `wechat_sub_appid`, `alipay_app_id`,
    /// `alipay_app_auth_token_env` / `_file`).
    static func merchants(_ root: Object, _ reader: Reader, into configuration: inout MerchantConfiguration) throws {
        if let value = root["service_provider"] {
            guard let object = value.object else { throw Problem(path: "service_provider", reason: "must be an object") }
            var provider = MerchantConfiguration.ServiceProvider()
            if let wechat = object["wechat"]?.object {
                provider.wechat = try Self.wechat(wechat, reader, path: "service_provider.wechat.")
            }
            if let v3 = object["wechat_v3"]?.object {
                provider.wechatV3 = try Self.wechatV3(v3, reader, path: "service_provider.wechat_v3.")
            }
            if let alipay = object["alipay"]?.object {
                provider.alipay = try Self.alipay(alipay, reader, path: "service_provider.alipay.")
            }
            configuration.serviceProvider = provider
        }
        guard let value = root["merchants"] else { return }
        guard let list = value.objects else { throw Problem(path: "merchants", reason: "must be a list of objects") }
        guard configuration.serviceProvider != nil else {
            throw Problem(path: "merchants", reason: "sub-merchants are paid through service_provider: give its credentials")
        }
        var seen = Set<String>()
        for (index, object) in list.enumerated() {
            let path = "merchants[\(index)]."
            let id = try reader.string(object, "id", path)!
            guard MerchantConfiguration.SubMerchant.isValidID(id), seen.insert(id).inserted else {
                throw Problem(path: path + "id", reason: "'\(id)' must be 1 to 32 of a-z, 0-9, - and _, and unique")
            }
            let token =
                ["alipay_app_auth_token", "alipay_app_auth_token_env", "alipay_app_auth_token_file"].contains { object[$0] != nil }
                ? try reader.secret(object, "alipay_app_auth_token", path) : nil
            let sub = MerchantConfiguration.SubMerchant(
                id: id, name: try reader.string(object, "name", path, required: false) ?? id,
                wechatSubMchID: try reader.string(object, "wechat_sub_mch_id", path, required: false),
                wechatSubAppID: try reader.string(object, "wechat_sub_appid", path, required: false), alipayAppAuthToken: token,
                alipayAppID: try reader.string(object, "alipay_app_id", path, required: false))
            guard (token == nil) == (sub.alipayAppID == nil) else {
                throw Problem(path: path + "alipay_app_id", reason: "give both alipay_app_id and alipay_app_auth_token_env (or _file)")
            }
            guard sub.wechatSubMchID != nil || token != nil else {
                throw Problem(
                    path: path + "wechat_sub_mch_id", reason: "a merchant needs wechat_sub_mch_id, an Alipay app_auth_token, or both")
            }
            configuration.subMerchants.append(sub)
        }
    }

    /// `wechat_v3`: the merchant's API certificate serial and key, the APIv3 key, and either
    /// WeChat Pay's public key (public-key mode) or nothing (platform certificates are downloaded).
    static func wechatV3(_ object: Object, _ reader: Reader, path: String = "wechat_v3.") throws -> MerchantConfiguration.WeChatV3 {
        let privateKey = try reader.rsaPrivateKey(
            object, "private_key", path, reason: "is not the RSA private key of the API certificate (apiclient_key.pem)")
        let apiV3Key = try reader.secret(object, "api_v3_key", path)
        let merchant: WeChatPay.V3.Merchant
        do {
            merchant = try WeChatPay.V3.Merchant(
                mchID: try reader.string(object, "mch_id", path)!,
                certificateSerial: try reader.string(object, "certificate_serial", path)!, privateKey: privateKey, apiV3Key: apiV3Key)
        } catch let problem as Problem {
            throw problem
        } catch let error as PaymentError {
            throw Problem(path: path + "api_v3_key", reason: error.message)
        }
        let keys = WeChatPay.V3.PlatformKeys()
        switch (
            try reader.string(object, "platform_public_key_file", path, required: false),
            try reader.string(object, "platform_public_key_id", path, required: false)
        ) {
        case (nil, nil): break  // certificate mode: downloaded from /v3/certificates at start and every 12 hours
        case (let file?, let id?):
            guard let key = try? RSAPublicKey(pemRepresentation: try reader.contents(file, path + "platform_public_key_file")) else {
                throw Problem(path: path + "platform_public_key_file", reason: "is not WeChat Pay's RSA public key (pub_key.pem)")
            }
            keys.add(publicKey: key, id: id)
        default:
            throw Problem(path: path + "platform_public_key_id", reason: "give both platform_public_key_file and platform_public_key_id")
        }
        var v3 = MerchantConfiguration.WeChatV3(
            appID: try reader.string(object, "appid", path)!, merchant: merchant, platformKeys: keys,
            baseURL: try reader.url(object, "base_url", path) ?? WeChatPay.V3.Client.productionURL)
        v3.downloadsPlatformCertificates = keys.serials.isEmpty
        v3.crossBorderCurrencies = try reader.currencies(object, "cross_border_currencies", path)
        if let value = object["complaint_notifications"] {
            guard let flag = value.bool else { throw Problem(path: path + "complaint_notifications", reason: "must be true or false") }
            v3.registersComplaintNotifyURL = flag
        }
        if let value = object["complaint_polling"] {
            guard let flag = value.bool else { throw Problem(path: path + "complaint_polling", reason: "must be true or false") }
            v3.pollsComplaints = flag
        }
        return v3
    }
}
