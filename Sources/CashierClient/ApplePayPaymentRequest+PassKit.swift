// Compiled on Apple platforms, and on Linux by the test-only CashierClientPlatformCheck target
// against a declaration of PassKit (Tests/PlatformStubs), so a wrong call fails the build here too.
#if (canImport(PassKit) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    import Foundation
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
            request.paymentSummaryItems = summaryItems.map(\.pkSummaryItem)
            request.shippingMethods = shippingMethods.map(\.pkShippingMethod)
            request.requiredBillingContactFields = Set(requiredBillingContactFields.compactMap(Self.contactField))
            request.requiredShippingContactFields = Set(requiredShippingContactFields.compactMap(Self.contactField))
            request.applicationData = applicationData
            request.supportsCouponCode = supportsCouponCode
            switch commitment {
            case .recurring(let description, let regular, let trial, let agreement, let management, let notification):
                let recurring = PKRecurringPaymentRequest(
                    paymentDescription: description, regularBilling: Self.billing(regular), managementURL: management)
                recurring.trialBilling = trial.map(Self.billing)
                recurring.billingAgreement = agreement
                recurring.tokenNotificationURL = notification
                request.recurringPaymentRequest = recurring
            case .deferred(
                let description, let label, let amount, let date, let agreement, let management, let notification, let cancel, let zone):
                let item = PKDeferredPaymentSummaryItem(label: label, amount: NSDecimalNumber(string: amount))
                item.deferredDate = date
                let deferred = PKDeferredPaymentRequest(paymentDescription: description, deferredBilling: item, managementURL: management)
                deferred.billingAgreement = agreement
                deferred.tokenNotificationURL = notification
                deferred.freeCancellationDate = cancel
                deferred.freeCancellationDateTimeZone = zone
                request.deferredPaymentRequest = deferred
            case .automaticReload(let description, let label, let amount, let threshold, let agreement, let management, let notification):
                let item = PKAutomaticReloadPaymentSummaryItem(label: label, amount: NSDecimalNumber(string: amount))
                item.thresholdAmount = NSDecimalNumber(string: threshold)
                let reload = PKAutomaticReloadPaymentRequest(
                    paymentDescription: description, automaticReloadBilling: item, managementURL: management)
                reload.billingAgreement = agreement
                reload.tokenNotificationURL = notification
                request.automaticReloadPaymentRequest = reload
            case nil: break
            }
            return request
        }

        /// A recurring billing line for PassKit.
        static func billing(_ billing: ApplePayCommitment.Billing) -> PKRecurringPaymentSummaryItem {
            let item = PKRecurringPaymentSummaryItem(label: billing.label, amount: NSDecimalNumber(string: billing.amount))
            item.startDate = billing.startDate
            item.endDate = billing.endDate
            item.intervalCount = billing.intervalCount
            item.intervalUnit =
                switch billing.intervalUnit {
                case "minute": .minute
                case "hour": .hour
                case "day": .day
                case "year": .year
                default: .month
                }
            return item
        }

        /// The PassKit network for an Apple Pay JS name.
        public static func network(_ name: String) -> PKPaymentNetwork? {
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

        /// The PassKit contact field for an Apple Pay JS name.
        public static func contactField(_ name: String) -> PKContactField? {
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

    extension ApplePayPaymentRequest.SummaryItem {
        /// The item for the sheet; the amount read exactly from its decimal string.
        public var pkSummaryItem: PKPaymentSummaryItem {
            PKPaymentSummaryItem(label: label, amount: NSDecimalNumber(string: amount), type: isPending ? .pending : .final)
        }
    }

    extension ApplePayPaymentRequest.ShippingMethod {
        public var pkShippingMethod: PKShippingMethod {
            let shipping = PKShippingMethod(label: label, amount: NSDecimalNumber(string: amount))
            shipping.identifier = identifier
            shipping.detail = detail
            return shipping
        }
    }
#endif
