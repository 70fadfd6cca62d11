import ApplePay
import Cashier
import CashierCrypto
import Foundation

extension Doctor {
    /// The keys and certificates a configuration names: each parses, each key belongs to its
    /// certificate, and each certificate's days left.
    struct Credentials {
        let root: ConfigurationFile.Object
        let reader: ConfigurationFile.Reader
        let now: Date

        /// The sections holding provider credentials, with the path the configuration gives them.
        func sections(_ key: String) -> [(path: String, object: ConfigurationFile.Object)] {
            var found: [(String, ConfigurationFile.Object)] = []
            if let object = root[key]?.object { found.append((key, object)) }
            if let object = root["service_provider"]?.object?[key]?.object { found.append(("service_provider." + key, object)) }
            return found
        }

        func findings() -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            for (path, object) in sections("wechat") { findings += wechatV2(path, object) }
            for (path, object) in sections("wechat_v3") { findings += wechatV3(path, object) }
            for (path, object) in sections("alipay") { findings += alipay(path, object) }
            if let applePay = root["applepay"]?.object { findings += self.applePay(applePay) }
            return findings
        }

        /// Every certificate that parses, with its end.
        func monitored() -> [MonitoredCertificate] {
            var list: [MonitoredCertificate] = []
            func add(_ name: String, _ object: ConfigurationFile.Object, _ key: String) {
                if let certificate = certificate(object, key).value {
                    list.append(MonitoredCertificate(name: name, notValidAfter: certificate.notValidAfter))
                }
            }
            for (path, object) in sections("wechat") { add(path + ".api_certificate", object, "api_certificate_file") }
            for (path, object) in sections("wechat_v3") { add(path + ".certificate", object, "certificate_file") }
            if let applePay = root["applepay"]?.object {
                add("applepay.processing_certificate", applePay, "processing_certificate_file")
                add("applepay.root_ca", applePay, "root_ca_file")
                if let web = applePay["web"]?.object { add("applepay.web.identity_certificate", web, "identity_certificate_file") }
            }
            return list
        }

        // MARK: Providers

        func wechatV2(_ path: String, _ object: ConfigurationFile.Object) -> [DoctorFinding] {
            guard object["api_certificate_file"] != nil else {
                return [
                    DoctorFinding(
                        path + ".api_certificate", .warning,
                        "no API certificate: refunds (secapi/pay/refund) will be refused by WeChat Pay",
                        fix: "give \(path).api_certificate_file and api_certificate_key_file (apiclient_cert.pem, apiclient_key.pem)")
                ]
            }
            return pair(
                path + ".api_certificate", certificate: certificate(object, "api_certificate_file"),
                key: fileKey(object, "api_certificate_key_file"),
                renew: "apply for a new API certificate in the merchant platform (账户中心 → API安全), replace apiclient_cert.pem and "
                    + "apiclient_key.pem, then send the server SIGHUP (cashier reload)")
        }

        func wechatV3(_ path: String, _ object: ConfigurationFile.Object) -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            let key = secretKey(object, "private_key")
            if object["certificate_file"] != nil {
                let loaded = certificate(object, "certificate_file")
                findings += pair(
                    path + ".certificate", certificate: loaded, key: key,
                    renew: "apply for a new API certificate in the merchant platform, replace apiclient_cert.pem, apiclient_key.pem "
                        + "and certificate_serial, then send SIGHUP")
                if let certificate = loaded.value, let serial = object["certificate_serial"]?.string,
                    certificate.serialNumberHex.caseInsensitiveCompare(serial) != .orderedSame
                {
                    findings.append(
                        DoctorFinding(
                            path + ".certificate_serial", .problem,
                            "is \(serial), but certificate_file's serial is \(certificate.serialNumberHex): WeChat Pay refuses every call (SIGN_ERROR)",
                            fix: "set certificate_serial to \(certificate.serialNumberHex)"))
                }
            } else {
                switch key {
                case .failure(let reason):
                    findings.append(DoctorFinding(path + ".private_key", .problem, reason.description, fix: "give apiclient_key.pem"))
                case .success:
                    findings.append(
                        DoctorFinding(
                            path + ".private_key", .note, "parses; not checked against its certificate, whose end is not watched",
                            fix: "add \(path).certificate_file (apiclient_cert.pem) to check both, or run --online"))
                }
            }
            if object["platform_public_key_file"] != nil {
                let text = (try? reader.contents(object["platform_public_key_file"]?.string ?? "", path)) ?? ""
                if (try? RSAPublicKey(pemRepresentation: text)) != nil {
                    findings.append(
                        DoctorFinding(
                            path + ".platform_public_key", .ok, "WeChat Pay's public key parses (public keys have no end date)"))
                } else {
                    findings.append(
                        DoctorFinding(
                            path + ".platform_public_key", .problem, "platform_public_key_file is not an RSA public key",
                            fix: "download pub_key.pem again from the merchant platform (API安全 → 微信支付公钥)"))
                }
            } else {
                findings.append(
                    DoctorFinding(
                        path + ".platform_certificates", .note,
                        "certificate mode: WeChat Pay's platform certificates are downloaded at start and every 12 hours",
                        fix: "run cashier doctor --online to download them now and see their days left"))
            }
            return findings
        }

        func alipay(_ path: String, _ object: ConfigurationFile.Object) -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            let privateKey: RSAPrivateKey?
            switch secretKey(object, "private_key") {
            case .failure(let reason):
                findings.append(
                    DoctorFinding(
                        path + ".private_key", .problem, reason.description, fix: "give the app private key (应用私钥) Alipay's key tool made"))
                privateKey = nil
            case .success(.rsa(let key)):
                privateKey = key
                if key.publicKey.keySizeInBits < 2048 {
                    findings.append(
                        DoctorFinding(
                            path + ".private_key", .problem, "is \(key.publicKey.keySizeInBits)-bit: RSA2 needs 2048 bits",
                            fix: "make a 2048-bit key pair with Alipay's key tool and upload the public key"))
                } else {
                    findings.append(
                        DoctorFinding(path + ".private_key", .ok, "the app private key parses (RSA \(key.publicKey.keySizeInBits))"))
                }
            case .success(.p256):
                findings.append(
                    DoctorFinding(
                        path + ".private_key", .problem, "is an EC key: Alipay signs with RSA2", fix: "give the RSA app private key"))
                privateKey = nil
            }
            let text = (try? reader.contents(object["alipay_public_key_file"]?.string ?? "", path)) ?? ""
            if let alipayKey = try? RSAPublicKey(pemRepresentation: text) {
                if let privateKey, privateKey.publicKey.derRepresentation == alipayKey.derRepresentation {
                    findings.append(
                        DoctorFinding(
                            path + ".alipay_public_key", .problem,
                            "alipay_public_key_file holds your app's own public key, not Alipay's: every answer would fail to verify",
                            fix: "copy the Alipay public key (支付宝公钥) from the open platform console, not the app public key"))
                } else {
                    findings.append(
                        DoctorFinding(path + ".alipay_public_key", .ok, "Alipay's public key parses (public keys have no end date)"))
                }
            } else {
                findings.append(
                    DoctorFinding(
                        path + ".alipay_public_key", .problem, "alipay_public_key_file is not an RSA public key",
                        fix: "copy the Alipay public key (支付宝公钥) from the open platform console"))
            }
            return findings
        }

        func applePay(_ object: ConfigurationFile.Object) -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            if object["processing_certificate_file"] != nil {
                findings += pair(
                    "applepay.processing_certificate", certificate: certificate(object, "processing_certificate_file"),
                    key: secretKey(object, "processing_key"),
                    renew: "create a new Payment Processing Certificate for the merchant id in Apple Developer, replace "
                        + "processing_certificate_file and processing_key, then send SIGHUP")
            }
            if object["root_ca_file"] != nil {
                findings += expiry(
                    "applepay.root_ca", certificate(object, "root_ca_file"),
                    renew: "download Apple Root CA - G3 again from apple.com/certificateauthority (or drop root_ca_file: it is built in)")
            }
            if let web = object["web"]?.object {
                findings += pair(
                    "applepay.web.identity_certificate", certificate: certificate(web, "identity_certificate_file"),
                    key: fileKey(web, "identity_key_file"),
                    renew: "renew the Merchant Identity Certificate in Apple Developer, replace identity_certificate_file and "
                        + "identity_key_file, then send SIGHUP")
            }
            return findings
        }

        // MARK: Reading

        enum LoadedKey {
            case rsa(RSAPrivateKey)
            case p256(P256PrivateKey)

            var publicKeyDER: [UInt8] {
                switch self {
                case .rsa(let key): key.publicKey.derRepresentation
                case .p256(let key): key.publicKey.derRepresentation
                }
            }
        }

        struct Loaded<Value> {
            var value: Value?
            var reason: String?
        }

        func certificate(_ object: ConfigurationFile.Object, _ key: String) -> Loaded<X509Certificate> {
            guard let name = object[key]?.string else { return Loaded(value: nil, reason: "\(key) is missing") }
            guard let text = try? reader.contents(name, key) else { return Loaded(value: nil, reason: "\(name) cannot be read") }
            guard let certificate = try? X509Certificate(pemRepresentation: text) else {
                return Loaded(value: nil, reason: "\(name) is not a PEM certificate")
            }
            return Loaded(value: certificate, reason: nil)
        }

        func parse(_ text: String) -> LoadedKey? {
            if let key = try? RSAPrivateKey(pemRepresentation: text) { return .rsa(key) }
            if let key = try? P256PrivateKey(pemRepresentation: text) { return .p256(key) }
            return nil
        }

        /// A key given as `<key>_file` (a path, not a secret).
        func fileKey(_ object: ConfigurationFile.Object, _ key: String) -> Result<LoadedKey, KeyProblem> {
            guard let name = object[key]?.string, let text = try? reader.contents(name, key) else {
                return .failure(KeyProblem("\(key) cannot be read"))
            }
            return parse(text).map { .success($0) } ?? .failure(KeyProblem("\(name) is not an RSA or P-256 private key"))
        }

        /// A key given as a secret (`<key>_file` or `<key>_env`).
        func secretKey(_ object: ConfigurationFile.Object, _ key: String) -> Result<LoadedKey, KeyProblem> {
            guard let text = try? reader.secret(object, key, "") else {
                return .failure(KeyProblem("\(key)_file / \(key)_env cannot be read"))
            }
            return parse(text).map { .success($0) } ?? .failure(KeyProblem("\(key) is not an RSA or P-256 private key"))
        }

        struct KeyProblem: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }

        // MARK: Judging

        /// A certificate and its key: both parse, the key is the certificate's, and its days left.
        func pair(_ check: String, certificate: Loaded<X509Certificate>, key: Result<LoadedKey, KeyProblem>, renew: String)
            -> [DoctorFinding]
        {
            var findings = expiry(check, certificate, renew: renew)
            switch key {
            case .failure(let problem):
                findings.append(DoctorFinding(check + ".key", .problem, problem.description, fix: renew))
            case .success(let key):
                if let loaded = certificate.value {
                    let certificateKey =
                        (try? RSAPublicKey(certificate: loaded))?.derRepresentation
                        ?? (try? P256PublicKey(certificate: loaded))?.derRepresentation
                    if certificateKey == key.publicKeyDER {
                        findings.append(DoctorFinding(check + ".key", .ok, "the private key belongs to the certificate"))
                    } else {
                        findings.append(
                            DoctorFinding(
                                check + ".key", .problem, "the private key is not the certificate's: every call signed with it fails",
                                fix: "give the key file that came with this certificate (or both anew)"))
                    }
                }
            }
            return findings
        }

        /// A certificate's end: a problem once it has ended or within 7 days, a warning within 30.
        func expiry(_ check: String, _ certificate: Loaded<X509Certificate>, renew: String) -> [DoctorFinding] {
            guard let certificate = certificate.value else {
                return [DoctorFinding(check, .problem, certificate.reason ?? "cannot be read", fix: renew)]
            }
            return [
                Doctor.expiry(
                    check, notValidBefore: certificate.notValidBefore, notValidAfter: certificate.notValidAfter, now: now, renew: renew)
            ]
        }
    }

    /// The finding for a certificate valid from `notValidBefore` to `notValidAfter`, at `now`.
    static func expiry(_ check: String, notValidBefore: Date, notValidAfter: Date, now: Date, renew: String) -> DoctorFinding {
        let days = Int((notValidAfter.timeIntervalSince(now) / 86_400).rounded(.down))
        let end = Self.day(notValidAfter)
        if notValidAfter < now {
            return DoctorFinding(check, .problem, "ended on \(end): payments that need it fail", fix: renew, daysLeft: days)
        }
        if notValidBefore > now {
            return DoctorFinding(
                check, .problem, "is not valid before \(Self.day(notValidBefore)): is this machine's clock right?",
                fix: "check the clock (timedatectl)",
                daysLeft: days)
        }
        if days < 7 { return DoctorFinding(check, .problem, "ends in \(days) day(s), on \(end)", fix: renew, daysLeft: days) }
        if days < 30 { return DoctorFinding(check, .warning, "ends in \(days) days, on \(end)", fix: renew, daysLeft: days) }
        return DoctorFinding(check, .ok, "valid until \(end) (\(days) days)", daysLeft: days)
    }

    /// `2027-01-31`.
    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
