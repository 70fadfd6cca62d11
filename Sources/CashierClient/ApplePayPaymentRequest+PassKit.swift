#if canImport(PassKit)
    public import PassKit

    /// The thin PassKit mapping: compiled only where PassKit exists (iOS, macOS, watchOS,
    /// visionOS), so Linux builds and tests never see it. Amounts go through
    /// `NSDecimalNumber(string:)`, never through a binary floating-point number.
    extension ApplePayPaymentRequest {
        /// A `PKPaymentRequest` for `PKPaymentAuthorizationController` / `…ViewController`.
        public func pkPaymentRequest() -> PKPaymentRequest {
            let request = PKPaymentRequest()
            request.merchantIdentifier = merchantIdentifier
            request.countryCode = countryCode
            request.currencyCode = currencyCode
            request.supportedNetworks = supportedNetworks.compactMap(Self.network)
            var capabilities: PKMerchantCapability = []
            for name in merchantCapabilities {
                switch name {
                case "supports3DS": capabilities.insert(.threeDSecure)
                case "supportsEMV": capabilities.insert(.emv)
                case "supportsCredit": capabilities.insert(.credit)
                case "supportsDebit": capabilities.insert(.debit)
                default: break
                }
            }
            request.merchantCapabilities = capabilities
            request.paymentSummaryItems = summaryItems.map { item in
                PKPaymentSummaryItem(
                    label: item.label, amount: NSDecimalNumber(string: item.amount), type: item.isPending ? .pending : .final)
            }
            request.shippingMethods = shippingMethods.map { method in
                let shipping = PKShippingMethod(label: method.label, amount: NSDecimalNumber(string: method.amount))
                shipping.identifier = method.identifier
                shipping.detail = method.detail
                return shipping
            }
            request.requiredBillingContactFields = Set(requiredBillingContactFields.compactMap(Self.contactField))
            request.requiredShippingContactFields = Set(requiredShippingContactFields.compactMap(Self.contactField))
            request.applicationData = applicationData
            return request
        }

        static func network(_ name: String) -> PKPaymentNetwork? {
            switch name {
            case "visa": .visa
            case "masterCard": .masterCard
            case "amex": .amex
            case "chinaUnionPay": .chinaUnionPay
            case "discover": .discover
            case "jcb": .JCB
            case "interac": .interac
            case "maestro": .maestro
            default: nil
            }
        }

        static func contactField(_ name: String) -> PKContactField? {
            switch name {
            case "postalAddress": .postalAddress
            case "email": .emailAddress
            case "phone": .phoneNumber
            case "name": .name
            case "phoneticName": .phoneticName
            default: nil
            }
        }
    }
#endif
