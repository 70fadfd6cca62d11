// A TEST-ONLY stand-in for Apple's PassKit: the surface CashierClient's glue uses, declared with the
// names, labels and types of Apple's documentation (developer.apple.com/documentation/passkit), so
// that a wrong call in the glue fails to compile on Linux. It moves no money and shows no sheet;
// `PKPaymentAuthorizationController.presenter` lets a test play the sheet. Never shipped: Package.swift
// declares this module on Linux only.
public import Contacts
public import Foundation

public struct PKPaymentNetwork: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let amex = PKPaymentNetwork("AmEx")
    public static let chinaUnionPay = PKPaymentNetwork("ChinaUnionPay")
    public static let discover = PKPaymentNetwork("Discover")
    public static let interac = PKPaymentNetwork("Interac")
    public static let JCB = PKPaymentNetwork("JCB")
    public static let maestro = PKPaymentNetwork("Maestro")
    public static let masterCard = PKPaymentNetwork("MasterCard")
    public static let visa = PKPaymentNetwork("Visa")
}

public struct PKMerchantCapability: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let threeDSecure = PKMerchantCapability(rawValue: 1 << 0)
    public static let emv = PKMerchantCapability(rawValue: 1 << 1)
    public static let credit = PKMerchantCapability(rawValue: 1 << 2)
    public static let debit = PKMerchantCapability(rawValue: 1 << 3)
}

public struct PKContactField: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let postalAddress = PKContactField(rawValue: "post")
    public static let emailAddress = PKContactField(rawValue: "email")
    public static let phoneNumber = PKContactField(rawValue: "phone")
    public static let name = PKContactField(rawValue: "name")
    public static let phoneticName = PKContactField(rawValue: "phoneticName")
}

public enum PKPaymentSummaryItemType: UInt, Sendable {
    case final, pending
}

open class PKPaymentSummaryItem: NSObject, @unchecked Sendable {
    open var label: String = ""
    open var amount: NSDecimalNumber = .zero
    open var type: PKPaymentSummaryItemType = .final
    override public init() {}
    public convenience init(label: String, amount: NSDecimalNumber) {
        self.init(label: label, amount: amount, type: .final)
    }
    public convenience init(label: String, amount: NSDecimalNumber, type: PKPaymentSummaryItemType) {
        self.init()
        self.label = label
        self.amount = amount
        self.type = type
    }
}

open class PKRecurringPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    open var startDate: Date?
    open var endDate: Date?
    open var intervalUnit: NSCalendar.Unit = .month
    open var intervalCount: Int = 1
}

open class PKDeferredPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    open var deferredDate = Date()
}

open class PKAutomaticReloadPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    open var thresholdAmount: NSDecimalNumber = .zero
}

open class PKRecurringPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var regularBilling: PKRecurringPaymentSummaryItem
    open var trialBilling: PKRecurringPaymentSummaryItem?
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?
    public init(paymentDescription: String, regularBilling: PKRecurringPaymentSummaryItem, managementURL: URL) {
        self.paymentDescription = paymentDescription
        self.regularBilling = regularBilling
        self.managementURL = managementURL
    }
}

open class PKDeferredPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var deferredBilling: PKDeferredPaymentSummaryItem
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?
    open var freeCancellationDate: Date?
    open var freeCancellationDateTimeZone: TimeZone?
    public init(paymentDescription: String, deferredBilling: PKDeferredPaymentSummaryItem, managementURL: URL) {
        self.paymentDescription = paymentDescription
        self.deferredBilling = deferredBilling
        self.managementURL = managementURL
    }
}

open class PKAutomaticReloadPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var automaticReloadBilling: PKAutomaticReloadPaymentSummaryItem
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?
    public init(paymentDescription: String, automaticReloadBilling: PKAutomaticReloadPaymentSummaryItem, managementURL: URL) {
        self.paymentDescription = paymentDescription
        self.automaticReloadBilling = automaticReloadBilling
        self.managementURL = managementURL
    }
}

open class PKShippingMethod: PKPaymentSummaryItem, @unchecked Sendable {
    open var identifier: String?
    open var detail: String?
}

public struct PKPaymentError: Error, Sendable {
    public enum Code: Int, Sendable {
        case unknownError = -1
        case shippingContactInvalidError = 1
        case billingContactInvalidError = 2
        case shippingAddressUnserviceableError = 3
        case couponCodeInvalidError = 4
        case couponCodeExpiredError = 5
    }
    public let code: Code
    /// `PKPaymentErrorContactFieldUserInfoKey`, `PKPaymentErrorPostalAddressUserInfoKey`, `NSLocalizedDescriptionKey`.
    public let userInfo: [String: String]
}

public let PKPaymentErrorContactFieldUserInfoKey = "PKPaymentErrorContactField"
public let PKPaymentErrorPostalAddressUserInfoKey = "PKPaymentErrorPostalAddress"

open class PKPaymentRequest: NSObject, @unchecked Sendable {
    open var merchantIdentifier: String = ""
    open var countryCode: String = ""
    open var currencyCode: String = ""
    open var supportedNetworks: [PKPaymentNetwork] = []
    open var merchantCapabilities: PKMerchantCapability = []
    open var paymentSummaryItems: [PKPaymentSummaryItem] = []
    open var shippingMethods: [PKShippingMethod]?
    open var requiredBillingContactFields: Set<PKContactField> = []
    open var requiredShippingContactFields: Set<PKContactField> = []
    open var applicationData: Data?
    open var supportsCouponCode: Bool = false
    open var couponCode: String?
    open var recurringPaymentRequest: PKRecurringPaymentRequest?
    open var deferredPaymentRequest: PKDeferredPaymentRequest?
    open var automaticReloadPaymentRequest: PKAutomaticReloadPaymentRequest?
    override public init() {}

    static func error(_ code: PKPaymentError.Code, _ info: [String: String?]) -> any Error {
        PKPaymentError(code: code, userInfo: info.compactMapValues { $0 })
    }
    open class func paymentContactInvalidError(withContactField field: PKContactField, localizedDescription: String?) -> any Error {
        error(
            .shippingContactInvalidError,
            [PKPaymentErrorContactFieldUserInfoKey: field.rawValue, "NSLocalizedDescription": localizedDescription])
    }
    open class func paymentShippingAddressInvalidError(withKey postalAddressKey: String, localizedDescription: String?) -> any Error {
        error(
            .shippingContactInvalidError,
            [PKPaymentErrorPostalAddressUserInfoKey: postalAddressKey, "NSLocalizedDescription": localizedDescription])
    }
    open class func paymentBillingAddressInvalidError(withKey postalAddressKey: String, localizedDescription: String?) -> any Error {
        error(
            .billingContactInvalidError,
            [PKPaymentErrorPostalAddressUserInfoKey: postalAddressKey, "NSLocalizedDescription": localizedDescription])
    }
    open class func paymentShippingAddressUnserviceableError(withLocalizedDescription localizedDescription: String?) -> any Error {
        error(.shippingAddressUnserviceableError, ["NSLocalizedDescription": localizedDescription])
    }
    open class func paymentCouponCodeInvalidError(localizedDescription: String?) -> any Error {
        error(.couponCodeInvalidError, ["NSLocalizedDescription": localizedDescription])
    }
    open class func paymentCouponCodeExpiredError(localizedDescription: String?) -> any Error {
        error(.couponCodeExpiredError, ["NSLocalizedDescription": localizedDescription])
    }
}

public enum PKPaymentAuthorizationStatus: Int, Sendable {
    case success, failure, invalidBillingPostalAddress, invalidShippingPostalAddress, invalidShippingContact, pinRequired, pinIncorrect,
        pinLockout
}

open class PKPaymentAuthorizationResult: NSObject, @unchecked Sendable {
    open var status: PKPaymentAuthorizationStatus
    open var errors: [any Error]!
    public init(status: PKPaymentAuthorizationStatus, errors: [any Error]?) {
        self.status = status
        self.errors = errors ?? []
    }
}

open class PKPaymentRequestUpdate: NSObject, @unchecked Sendable {
    open var status: PKPaymentAuthorizationStatus = .success
    open var paymentSummaryItems: [PKPaymentSummaryItem]
    public init(paymentSummaryItems: [PKPaymentSummaryItem]) { self.paymentSummaryItems = paymentSummaryItems }
}

open class PKPaymentRequestShippingMethodUpdate: PKPaymentRequestUpdate, @unchecked Sendable {}

open class PKPaymentRequestShippingContactUpdate: PKPaymentRequestUpdate, @unchecked Sendable {
    open var shippingMethods: [PKShippingMethod]
    open var errors: [any Error]!
    public init(errors: [any Error]?, paymentSummaryItems: [PKPaymentSummaryItem], shippingMethods: [PKShippingMethod]) {
        self.shippingMethods = shippingMethods
        self.errors = errors ?? []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }
}

open class PKPaymentRequestCouponCodeUpdate: PKPaymentRequestUpdate, @unchecked Sendable {
    open var shippingMethods: [PKShippingMethod]
    open var errors: [any Error]!
    public init(errors: [any Error]?, paymentSummaryItems: [PKPaymentSummaryItem], shippingMethods: [PKShippingMethod]) {
        self.shippingMethods = shippingMethods
        self.errors = errors ?? []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }
}

public enum PKPaymentMethodType: UInt, Sendable {
    case unknown, debit, credit, prepaid, store, eMoney
}

open class PKPaymentMethod: NSObject, @unchecked Sendable {
    open var displayName: String?
    open var network: PKPaymentNetwork?
    open var type: PKPaymentMethodType = .unknown
    override public init() {}
}

open class PKPaymentToken: NSObject, @unchecked Sendable {
    open var paymentMethod = PKPaymentMethod()
    open var transactionIdentifier: String = ""
    open var paymentData = Data()
    override public init() {}
}

open class PKContact: NSObject, @unchecked Sendable {
    open var name: PersonNameComponents?
    open var postalAddress: CNPostalAddress?
    open var emailAddress: String?
    open var phoneNumber: CNPhoneNumber?
    override public init() {}
}

open class PKPayment: NSObject, @unchecked Sendable {
    open var token = PKPaymentToken()
    open var billingContact: PKContact?
    open var shippingContact: PKContact?
    open var shippingMethod: PKShippingMethod?
    override public init() {}
}

/// Apple declares these optional (`@objc optional`); here the ones the glue implements are
/// required, so a misspelt method — which PassKit would silently never call — fails to compile.
public protocol PKPaymentAuthorizationControllerDelegate: NSObjectProtocol {
    func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController, didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController, didSelectShippingMethod shippingMethod: PKShippingMethod,
        handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController, didSelectShippingContact contact: PKContact,
        handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void)
}

open class PKPaymentAuthorizationController: NSObject, @unchecked Sendable {
    /// TEST HOOK (not in PassKit): plays the sheet when `present` is called; `false` = not shown.
    nonisolated(unsafe) public static var presenter: (@Sendable (PKPaymentAuthorizationController) -> Bool)?

    open weak var delegate: (any PKPaymentAuthorizationControllerDelegate)?
    public let paymentRequest: PKPaymentRequest
    public init(paymentRequest request: PKPaymentRequest) { paymentRequest = request }

    open class func canMakePayments() -> Bool { true }

    /// TEST HOOK (not in PassKit): the networks this "device" has a card for; every one when `nil`.
    nonisolated(unsafe) public static var cardNetworks: Set<PKPaymentNetwork>?

    open class func canMakePayments(usingNetworks supportedNetworks: [PKPaymentNetwork]) -> Bool {
        supportedNetworks.contains { cardNetworks?.contains($0) ?? true }
    }

    open func present(completion: ((Bool) -> Void)? = nil) {
        completion?(Self.presenter?(self) ?? false)
    }

    open func dismiss(completion: (() -> Void)? = nil) {
        completion?()
    }
}
