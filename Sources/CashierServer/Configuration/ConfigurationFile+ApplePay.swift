import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import Foundation

extension ConfigurationFile {
    /// `["postalAddress", "name", "phone", "email", "phoneticName"]`.
    static func contactFields(_ value: JSONReader.Value?, path: String) throws -> [ApplePay.PaymentRequest.ContactField] {
        guard let value else { return [] }
        guard let names = value.strings else { throw Problem(path: path, reason: "must be a list of contact field names") }
        return try names.map { name in
            guard let field = ApplePay.PaymentRequest.ContactField(rawValue: name) else {
                throw Problem(
                    path: path,
                    reason:
                        "'\(name)' is not one of \(ApplePay.PaymentRequest.ContactField.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return field
        }
    }

    static func applePay(_ object: Object, _ reader: Reader) throws -> MerchantConfiguration.ApplePay {
        let country: CountryCode
        do {
            country = try CountryCode(alpha2: try reader.string(object, "country_code", "applepay.")!)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(path: "applepay.country_code", reason: "is not an ISO 3166 alpha-2 code (e.g. CN)")
        }
        let networks = try (object["supported_networks"]?.strings ?? []).map { name in
            guard let network = ApplePay.PaymentRequest.Network(rawValue: name) else {
                throw Problem(path: "applepay.supported_networks", reason: "unknown network '\(name)'")
            }
            return network
        }
        guard !networks.isEmpty else { throw Problem(path: "applepay.supported_networks", reason: "name at least one network") }
        var anchors: [X509Certificate]?
        if let root = try reader.string(object, "root_ca_file", "applepay.", required: false) {
            guard
                let certificates = try? X509Certificate.certificates(pemRepresentation: try reader.contents(root, "applepay.root_ca_file"))
            else {
                throw Problem(path: "applepay.root_ca_file", reason: "is not a PEM certificate")
            }
            anchors = certificates
        }
        let verifier = try ApplePay.TokenVerifier(trustAnchors: anchors)
        // The processing key is optional with a processor that holds it (Stripe, Adyen): given, tokens
        // are also decrypted here and their amount checked before the processor sees them.
        var decrypter: ApplePay.TokenDecrypter?
        if object["processing_certificate_file"] != nil {
            do {
                let key = try ApplePay.MerchantKey(
                    certificatePEM: try reader.contents(
                        try reader.string(object, "processing_certificate_file", "applepay.")!, "applepay.processing_certificate_file"),
                    privateKeyPEM: try reader.secret(object, "processing_key", "applepay."))
                decrypter = ApplePay.TokenDecrypter(merchantKeys: [key], verifier: verifier)
            } catch let problem as Problem {
                throw problem
            } catch let error as PaymentError {
                throw Problem(path: "applepay.processing_certificate_file", reason: error.message)
            }
        }
        let processor: any ApplePay.PaymentProcessor
        var adyenHMACKey: String?
        var stripeWebhookSecret: String?
        let transport = CurlTransport()
        switch try reader.string(object, "processor", "applepay.")! {
        case "stripe":
            let stripe = object["stripe"]?.object ?? [:]
            let key = try reader.secret(stripe, "secret_key", "applepay.stripe.")
            guard key.hasPrefix("sk_") || key.hasPrefix("rk_") else {
                throw Problem(path: "applepay.stripe.secret_key", reason: "is not a Stripe secret key (sk_live_…, sk_test_… or rk_…)")
            }
            processor = ApplePay.StripeProcessor(
                secretKey: key, baseURL: try reader.url(stripe, "base_url", "applepay.stripe.") ?? ApplePay.StripeProcessor.productionURL,
                transport: transport)
            // Stripe's webhook events (POST /notify/stripe) are read when the endpoint's signing secret is given.
            if stripe["webhook_secret_env"] != nil || stripe["webhook_secret_file"] != nil || stripe["webhook_secret"] != nil {
                let secret = try reader.secret(stripe, "webhook_secret", "applepay.stripe.")
                guard secret.hasPrefix("whsec_"), (try? ApplePay.StripeEvent.checkSecret(secret)) != nil else {
                    throw Problem(
                        path: "applepay.stripe.webhook_secret",
                        reason: "is not a webhook signing secret (whsec_…): copy it from Dashboard → Developers → Webhooks → the endpoint")
                }
                stripeWebhookSecret = secret
            }
        case "adyen":
            let adyen = object["adyen"]?.object ?? [:]
            let key = try reader.secret(adyen, "api_key", "applepay.adyen.")
            let account = try reader.string(adyen, "merchant_account", "applepay.adyen.")!
            var base = try reader.url(adyen, "base_url", "applepay.adyen.")
            if base == nil {
                switch try reader.string(adyen, "environment", "applepay.adyen.", required: false) ?? "test" {
                case "test": base = ApplePay.AdyenProcessor.testURL
                case "live":
                    guard let prefix = try reader.string(adyen, "live_endpoint_prefix", "applepay.adyen.", required: false),
                        let url = ApplePay.AdyenProcessor.liveURL(prefix: prefix)
                    else {
                        throw Problem(
                            path: "applepay.adyen.live_endpoint_prefix",
                            reason: "is needed for \"environment\": \"live\" (Customer Area → Developers → API URLs)")
                    }
                    base = url
                default: throw Problem(path: "applepay.adyen.environment", reason: "must be \"test\" or \"live\"")
                }
            }
            // The report user's key lets reconciliation read the daily Payment accounting report.
            var reports: ApplePay.AdyenProcessor.ReportAccess?
            if adyen["report_api_key_env"] != nil || adyen["report_api_key_file"] != nil {
                let live = (try reader.string(adyen, "environment", "applepay.adyen.", required: false)) == "live"
                reports = .init(
                    baseURL: try reader.url(adyen, "report_base_url", "applepay.adyen.")
                        ?? (live ? ApplePay.AdyenProcessor.ReportAccess.liveURL : ApplePay.AdyenProcessor.ReportAccess.testURL),
                    apiKey: try reader.secret(adyen, "report_api_key", "applepay.adyen."))
            }
            processor = ApplePay.AdyenProcessor(
                apiKey: key, merchantAccount: account, baseURL: base!, reports: reports, transport: transport)
            // Adyen's webhooks (POST /notify/adyen) are read when their HMAC key is given.
            if adyen["hmac_key_env"] != nil || adyen["hmac_key_file"] != nil || adyen["hmac_key"] != nil {
                let hmacKey = try reader.secret(adyen, "hmac_key", "applepay.adyen.")
                guard (try? ApplePay.AdyenNotification.checkKey(hmacKey)) != nil else {
                    throw Problem(
                        path: "applepay.adyen.hmac_key",
                        reason: "is not hex: copy the webhook's HMAC key from Customer Area → Developers → Webhooks")
                }
                adyenHMACKey = hmacKey
            }
        case "sandbox":
            throw Problem(
                path: "applepay.processor",
                reason: "\"sandbox\" authorises every token without moving money, so it runs only in sandbox mode "
                    + "(`cashier-sandbox serve`); configure \"stripe\" (with applepay.stripe.secret_key_env) or \"adyen\" "
                    + "(with applepay.adyen.api_key_env and merchant_account), or connect another processor by implementing ApplePay.PaymentProcessor"
            )
        case let other:
            throw Problem(path: "applepay.processor", reason: "'\(other)' is not built in: use \"stripe\" or \"adyen\"")
        }
        if processor.tokenForm == .decrypted, decrypter == nil {
            throw Problem(
                path: "applepay.processing_certificate_file",
                reason: "this processor takes decrypted tokens: give the payment processing certificate and processing_key_env/_file")
        }
        var applePay = MerchantConfiguration.ApplePay(
            merchantIdentifier: try reader.string(object, "merchant_identifier", "applepay.")!, countryCode: country,
            displayName: try reader.string(object, "display_name", "applepay.")!, supportedNetworks: networks, verifier: verifier,
            decrypter: decrypter, processor: processor)
        applePay.adyenHMACKey = adyenHMACKey
        applePay.stripeWebhookSecret = stripeWebhookSecret
        switch try reader.string(object, "capture", "applepay.", required: false) ?? "automatic" {
        case "automatic": applePay.capture = .automatic
        case "manual": applePay.capture = .manual
        default: throw Problem(path: "applepay.capture", reason: "must be \"automatic\" or \"manual\"")
        }
        if let file = try reader.string(object, "domain_association_file", "applepay.", required: false) {
            applePay.domainAssociation = try reader.contents(file, "applepay.domain_association_file")
        }
        if let web = object["web"]?.object {
            let certificate = try reader.string(web, "identity_certificate_file", "applepay.web.")!
            let key = try reader.string(web, "identity_key_file", "applepay.web.")!
            for (file, path) in [(certificate, "identity_certificate_file"), (key, "identity_key_file")] {
                _ = try reader.contents(file, "applepay.web." + path)
            }
            func absolute(_ file: String) -> String { file.hasPrefix("/") ? file : reader.folder.appendingPathComponent(file).path }
            applePay.webSession = ApplePay.MerchantValidator(
                merchantIdentifier: applePay.merchantIdentifier, displayName: applePay.displayName,
                domain: try reader.string(web, "domain", "applepay.web.")!,
                transport: CurlTransport(clientCertificate: .init(certificatePath: absolute(certificate), keyPath: absolute(key))))
        }
        applePay.shippingMethods = try Self.shippingOptions(object["shipping_methods"], path: "applepay.shipping_methods")
        if let countries = object["shipping_countries"] {
            guard let codes = countries.strings, codes.allSatisfy({ (try? CountryCode(alpha2: $0)) != nil }) else {
                throw Problem(
                    path: "applepay.shipping_countries", reason: "must be a list of ISO 3166 alpha-2 codes (e.g. [\"US\", \"CN\"])")
            }
            applePay.shippingCountries = Set(codes.map { $0.uppercased() })
        }
        applePay.requiredBillingContactFields = try Self.contactFields(
            object["required_billing_contact_fields"], path: "applepay.required_billing_contact_fields")
        applePay.requiredShippingContactFields = try Self.contactFields(
            object["required_shipping_contact_fields"], path: "applepay.required_shipping_contact_fields")
        return applePay
    }

    /// `[{"identifier", "label", "detail", "amount": "5.00"}]`, checked in CNY and USD (two decimals).
    static func shippingOptions(_ value: JSONReader.Value?, path: String) throws -> [MerchantConfiguration.ApplePay.ShippingOption] {
        guard let value else { return [] }
        guard let list = value.objects else { throw Problem(path: path, reason: "must be a list of objects") }
        return try list.enumerated().map { index, object in
            guard let identifier = object["identifier"]?.string, let label = object["label"]?.string,
                let amount = object["amount"]?.string
            else { throw Problem(path: "\(path)[\(index)]", reason: "needs identifier, label and amount (a decimal string)") }
            let option = MerchantConfiguration.ApplePay.ShippingOption(
                identifier: identifier, label: label, detail: object["detail"]?.string ?? "", amount: amount)
            do {
                _ = try option.method(in: try Currency(code: "USD"))
            } catch {
                throw Problem(
                    path: "\(path)[\(index)].amount", reason: "'\(amount)' is not a decimal amount of zero or more (e.g. \"5.00\")")
            }
            return option
        }
    }
}
