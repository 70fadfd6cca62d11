import Cashier
import Foundation

extension Doctor {
    /// The addresses the providers and payers are sent to: the notify URLs hang off
    /// `public_base_url` and must be https on a public host; return pages and the webhook should
    /// be https; a gateway's `base_url` left pointing at a sandbox is a mistake in production.
    struct Addresses {
        let root: ConfigurationFile.Object

        /// The paths the providers are told to notify, under `public_base_url`.
        static let notifyPaths = ["/notify/wechat/v2", "/notify/wechat/v2/refund", "/notify/wechat/v3", "/notify/alipay"]

        func findings() -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            if let base = root["public_base_url"]?.string {
                findings += publicBase(base)
            }
            if let origins = root["checkout"]?.object?["return_origins"]?.strings {
                for origin in origins { findings += secure(origin, "checkout.return_origins", what: "a payer's browser is sent back to") }
            }
            if let url = root["webhook"]?.object?["url"]?.string {
                findings += secure(url, "webhook.url", what: "order events are posted to", loopbackIsFine: true)
            }
            if let site = root["wechat"]?.object?["h5_site"]?.object?["url"]?.string {
                findings += secure(site, "wechat.h5_site.url", what: "WeChat Pay H5 names as the paying site")
            }
            findings += gateways()
            return findings
        }

        /// `public_base_url`: https, a public host, no query; the notify URLs it makes.
        func publicBase(_ text: String) -> [DoctorFinding] {
            guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else {
                return [DoctorFinding("public_base_url", .problem, "'\(text)' is not a URL", fix: "give https://your.host")]
            }
            var findings: [DoctorFinding] = []
            let notify = text.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + Self.notifyPaths[0]
            if url.scheme != "https" {
                findings.append(
                    DoctorFinding(
                        "public_base_url", .problem,
                        "is \(url.scheme ?? "not") http(s): WeChat Pay v3 and Alipay send notifications to https URLs only (\(notify))",
                        fix: "serve Cashier behind TLS (deploy/nginx.conf) and give https://\(host)"))
            }
            if let kind = Self.unreachableKind(host) {
                findings.append(
                    DoctorFinding(
                        "public_base_url", .problem, "names \(kind) (\(host)): the providers cannot reach \(notify)",
                        fix: "give the public host name the providers reach this server at"))
            }
            if url.query != nil || url.fragment != nil {
                findings.append(
                    DoctorFinding(
                        "public_base_url", .problem, "has a query or fragment: the notify URLs would break",
                        fix: "give scheme://host[/prefix] only"))
            }
            let prefix = url.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            if !prefix.isEmpty {
                findings.append(
                    DoctorFinding(
                        "public_base_url", .note,
                        "has the path /\(prefix): the providers post to /\(prefix)/notify/…, which the proxy must pass on as /notify/…",
                        fix: "strip /\(prefix) in the proxy (nginx: location /\(prefix)/ { proxy_pass http://cashier/; })"))
            }
            if !findings.contains(where: { $0.needsAction }) {
                findings.append(
                    DoctorFinding(
                        "public_base_url", .ok,
                        "notify URLs: \(Self.notifyPaths.map { text.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + $0 }.joined(separator: ", "))"
                    ))
            }
            return findings
        }

        /// A URL people or the merchant's backend are sent to: https unless on this machine.
        func secure(_ text: String, _ check: String, what: String, loopbackIsFine: Bool = false) -> [DoctorFinding] {
            guard let url = URLComponents(string: text), let host = url.host else {
                return [DoctorFinding(check, .problem, "'\(text)' is not a URL")]
            }
            let local = Self.unreachableKind(host) != nil
            if url.scheme == "https" || (loopbackIsFine && local) {
                return [DoctorFinding(check, .ok, "\(text) (\(what))")]
            }
            if local && !loopbackIsFine {
                return [
                    DoctorFinding(
                        check, .problem, "\(text) is \(what), but names a host only this machine reaches",
                        fix: "give the public https address")
                ]
            }
            return [DoctorFinding(check, .warning, "\(text) is \(what) over plain http", fix: "use https://\(host)")]
        }

        /// Gateways moved off the providers' production addresses (a sandbox's left in the file).
        func gateways() -> [DoctorFinding] {
            var findings: [DoctorFinding] = []
            let production: [(section: [String], key: String, host: String)] = [
                (["wechat"], "base_url", "api.mch.weixin.qq.com"), (["wechat_v3"], "base_url", "api.mch.weixin.qq.com"),
                (["alipay"], "gateway", "openapi.alipay.com"),
                (["service_provider", "wechat"], "base_url", "api.mch.weixin.qq.com"),
                (["service_provider", "wechat_v3"], "base_url", "api.mch.weixin.qq.com"),
                (["service_provider", "alipay"], "gateway", "openapi.alipay.com"),
            ]
            for entry in production {
                var object: ConfigurationFile.Object? = root
                for name in entry.section { object = object?[name]?.object }
                guard let text = object?[entry.key]?.string, let host = URLComponents(string: text)?.host else { continue }
                let path = (entry.section + [entry.key]).joined(separator: ".")
                if host != entry.host {
                    findings.append(
                        DoctorFinding(
                            path, .warning, "points at \(host), not \(entry.host): no real money moves there",
                            fix: "remove \(path) for production (the default is \(entry.host))"))
                }
            }
            return findings
        }

        /// Why `host` is not reachable from the internet: `nil` when it may be.
        static func unreachableKind(_ host: String) -> String? {
            let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name.hasPrefix("127.") {
                return "this machine"
            }
            if name == "0.0.0.0" || name == "::" { return "no address" }
            let parts = name.split(separator: ".").compactMap { Int($0) }
            if parts.count == 4 {
                if parts[0] == 10 || (parts[0] == 172 && (16...31).contains(parts[1])) || (parts[0] == 192 && parts[1] == 168)
                    || (parts[0] == 169 && parts[1] == 254)
                {
                    return "a private address"
                }
            }
            if name.hasPrefix("fc") || name.hasPrefix("fd") || name.hasPrefix("fe80:") {
                return name.contains(":") ? "a private address" : nil
            }
            if name.hasSuffix(".local") || name.hasSuffix(".internal") || !name.contains(".") && !name.contains(":") {
                return "a local name"
            }
            return nil
        }
    }
}
