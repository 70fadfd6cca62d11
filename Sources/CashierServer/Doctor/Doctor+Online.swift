import Alipay
public import Cashier
import CashierCrypto
import Foundation
import Synchronization
import WeChatPay

extension Doctor {
    /// The checks that need the network: one signed read-only call to each configured provider —
    /// a query for an order that does not exist, whose "no such order" (`ORDERNOTEXIST`,
    /// `ORDER_NOT_EXIST`, `ACQ.TRADE_NOT_EXIST`) means the provider accepted the signature and
    /// its answer verified here —, WeChat Pay v3's platform certificates downloaded with their
    /// days left, this machine's clock against the providers' `Date` headers, and this server's
    /// own `/healthz` at `public_base_url`.
    /// - Parameter transport: what the calls go through (libcurl in `cashier doctor`).
    public func online(transport: any HTTPTransport) async -> [DoctorFinding] {
        let configuration: MerchantConfiguration
        do {
            configuration = try ConfigurationFile(contentsOf: file, environment: environment).configuration
        } catch {
            return [DoctorFinding("online", .note, "skipped: the providers are called only with a configuration cashier serve accepts")]
        }
        let recorder = DateRecorder(base: transport)
        let probe = "cashierdoctor" + SecureRandom.alphanumeric(count: 12).lowercased()
        var findings: [DoctorFinding] = []
        var called = false
        for (path, wechat) in [("wechat", configuration.wechat), ("service_provider.wechat", configuration.serviceProvider?.wechat)] {
            guard let wechat else { continue }
            called = true
            findings.append(await Self.wechatV2(path, wechat, probe: probe, transport: recorder))
        }
        for (path, v3) in [("wechat_v3", configuration.wechatV3), ("service_provider.wechat_v3", configuration.serviceProvider?.wechatV3)] {
            guard let v3 else { continue }
            called = true
            findings += await wechatV3(path, v3, probe: probe, transport: recorder)
        }
        for (path, alipay) in [("alipay", configuration.alipay), ("service_provider.alipay", configuration.serviceProvider?.alipay)] {
            guard let alipay else { continue }
            called = true
            findings.append(await Self.alipay(path, alipay, probe: probe, transport: recorder))
        }
        if configuration.applePay != nil {
            findings.append(
                DoctorFinding(
                    "applepay.online", .note,
                    "Apple Pay is not called by doctor: the first token (cashier-sandbox's minter, or a device) proves the processing key"))
        }
        findings.append(
            called ? clock(recorder) : DoctorFinding("clock", .note, "skipped: no WeChat Pay or Alipay credentials to compare with"))
        if let base = configuration.publicBaseURL {
            findings.append(await Self.reachable(base, transport: transport))
        }
        return findings
    }

    /// This machine's clock against the `Date` the providers answered with: signatures carry a
    /// timestamp WeChat Pay v3 refuses five minutes off, and certificates are judged by it.
    func clock(_ recorder: DateRecorder) -> DoctorFinding {
        guard let (host, skew) = recorder.firstSkew else {
            return DoctorFinding("clock", .note, "skipped: no provider answered with a Date header")
        }
        let seconds = Int(skew.rounded())
        let text = "\(abs(seconds)) s \(seconds >= 0 ? "behind" : "ahead of") \(host)"
        if abs(skew) > 120 {
            return DoctorFinding(
                "clock", .problem, "this machine's clock is \(text): signed calls and notifications are refused past 5 minutes",
                fix: "run NTP (timedatectl set-ntp true)")
        }
        if abs(skew) > 10 {
            return DoctorFinding("clock", .warning, "this machine's clock is \(text)", fix: "run NTP (timedatectl set-ntp true)")
        }
        return DoctorFinding("clock", .ok, "within \(max(1, abs(seconds))) s of \(host)")
    }

    static func wechatV2(_ path: String, _ wechat: MerchantConfiguration.WeChat, probe: String, transport: any HTTPTransport) async
        -> DoctorFinding
    {
        let client = WeChatPay.V2.Client(merchant: wechat.merchant, transport: transport, baseURL: wechat.baseURL)
        let check = path + ".online"
        do {
            _ = try await client.orderQuery(outTradeNo: probe)
            return DoctorFinding(check, .warning, "pay/orderquery found an order \(probe) that should not exist")
        } catch let error as PaymentError where error.providerCode == "ORDERNOTEXIST" {
            return DoctorFinding(check, .ok, "pay/orderquery accepted the signature and its answer verified with api_key (ORDERNOTEXIST)")
        } catch let error as PaymentError {
            return refusal(check, error, keys: "\(path).appid, mch_id and api_key (账户中心 → API安全 → 设置APIv2密钥)")
        } catch {
            return DoctorFinding(check, .problem, "pay/orderquery failed: \(error)")
        }
    }

    func wechatV3(_ path: String, _ v3: MerchantConfiguration.WeChatV3, probe: String, transport: any HTTPTransport) async
        -> [DoctorFinding]
    {
        var findings: [DoctorFinding] = []
        let keys = v3.downloadsPlatformCertificates ? WeChatPay.V3.PlatformKeys() : v3.platformKeys
        let client = WeChatPay.V3.Client(merchant: v3.merchant, keys: keys, transport: transport, baseURL: v3.baseURL)
        if v3.downloadsPlatformCertificates {
            do {
                try await client.downloadCertificates()
                for (serial, end) in keys.certificateExpiries {
                    findings.append(
                        Self.expiry(
                            "\(path).platform_certificate.\(serial)", notValidBefore: .distantPast, notValidAfter: end, now: now,
                            renew:
                                "WeChat Pay issues the next platform certificate before this one ends; the server downloads it by itself "
                                + "(if none comes, switch to the platform public key: 微信支付公钥)"))
                }
            } catch let error as PaymentError {
                findings.append(
                    Self.refusal(
                        "\(path).platform_certificates", error,
                        keys: "\(path).mch_id, certificate_serial, private_key and api_v3_key (the certificates are decrypted with it)"))
            } catch {
                findings.append(DoctorFinding("\(path).platform_certificates", .problem, "/v3/certificates failed: \(error)"))
            }
        }
        let check = path + ".online"
        do {
            _ = try await client.transaction(outTradeNo: probe)
            findings.append(DoctorFinding(check, .warning, "the v3 query found an order \(probe) that should not exist"))
        } catch let error as PaymentError where error.providerCode == "ORDER_NOT_EXIST" {
            findings.append(DoctorFinding(check, .ok, "the v3 query accepted the signature (ORDER_NOT_EXIST)"))
        } catch let error as PaymentError {
            findings.append(Self.refusal(check, error, keys: "\(path).mch_id, certificate_serial and private_key (apiclient_key.pem)"))
        } catch {
            findings.append(DoctorFinding(check, .problem, "the v3 query failed: \(error)"))
        }
        return findings
    }

    static func alipay(_ path: String, _ alipay: MerchantConfiguration.Alipay, probe: String, transport: any HTTPTransport) async
        -> DoctorFinding
    {
        let client = Alipay.Client(
            appID: alipay.appID, signer: Alipay.Signer(privateKey: alipay.privateKey), alipayPublicKey: alipay.alipayPublicKey,
            transport: transport, gateway: alipay.gateway)
        let check = path + ".online"
        do {
            _ = try await client.query(outTradeNo: probe)
            return DoctorFinding(check, .warning, "alipay.trade.query found an order \(probe) that should not exist")
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
            return DoctorFinding(
                check, .ok, "alipay.trade.query accepted the signature and its answer verified with alipay_public_key (ACQ.TRADE_NOT_EXIST)"
            )
        } catch let error as PaymentError {
            return refusal(
                check, error, keys: "\(path).app_id, private_key (its public key uploaded to the console) and alipay_public_key_file")
        } catch {
            return DoctorFinding(check, .problem, "alipay.trade.query failed: \(error)")
        }
    }

    /// A provider's refusal, or an answer that did not verify, said with the settings to look at.
    static func refusal(_ check: String, _ error: PaymentError, keys: String) -> DoctorFinding {
        switch error.code {
        case .transport:
            return DoctorFinding(check, .problem, "no answer: \(error.message)", fix: "check this machine's outbound https access and DNS")
        case .signatureMismatch, .unknownKey:
            return DoctorFinding(check, .problem, "the answer does not verify: \(error.message)", fix: "check \(keys)")
        case .decryptionFailure:
            return DoctorFinding(check, .problem, "the answer does not decrypt: \(error.message)", fix: "check \(keys)")
        default:
            let code = [error.providerCode, error.providerMessage].compactMap { $0 }.joined(separator: " ")
            return DoctorFinding(check, .problem, "refused: \(code.isEmpty ? error.message : code)", fix: "check \(keys)")
        }
    }

    /// `GET public_base_url/healthz`: whether the providers can reach this server where it says it is.
    static func reachable(_ base: String, transport: any HTTPTransport) async -> DoctorFinding {
        guard let url = URL(string: base + "/healthz") else {
            return DoctorFinding("public_base_url.reachable", .problem, "\(base) is not a URL")
        }
        do {
            let response = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(10)))
            if response.status == 200, String(decoding: response.body, as: UTF8.self).contains("\"ok\"") {
                return DoctorFinding("public_base_url.reachable", .ok, "\(url.absoluteString) answers: this server is reachable there")
            }
            return DoctorFinding(
                "public_base_url.reachable", .warning, "\(url.absoluteString) answered HTTP \(response.status), not Cashier's health check",
                fix: "make the proxy pass \(base)/ on to cashier serve")
        } catch {
            return DoctorFinding(
                "public_base_url.reachable", .warning,
                "\(url.absoluteString) did not answer: notifications cannot arrive while it does not",
                fix: "start cashier serve (and the proxy) and run cashier doctor --online again")
        }
    }

    /// The `Date` of the first answer that had one, against this machine's clock midway through the call.
    final class DateRecorder: HTTPTransport {
        let base: any HTTPTransport
        private let first = Mutex<(host: String, skew: Double)?>(nil)

        init(base: any HTTPTransport) { self.base = base }

        var firstSkew: (host: String, skew: Double)? { first.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let sent = Date()
            let response = try await base.send(request)
            let received = Date()
            if let text = response.headers["Date"], let date = Self.httpDate(text) {
                let middle = sent.addingTimeInterval(received.timeIntervalSince(sent) / 2)
                first.withLock { first in
                    if first == nil { first = (request.url.host ?? "?", date.timeIntervalSince(middle)) }
                }
            }
            return response
        }

        /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
        static func httpDate(_ text: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            return formatter.date(from: text)
        }
    }
}
