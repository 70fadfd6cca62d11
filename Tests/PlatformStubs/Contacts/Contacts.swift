// A TEST-ONLY stand-in for Apple's Contacts framework: the few declarations the PassKit glue reads,
// with Apple's documented names and types, so the glue type-checks on Linux. Never shipped.
public import Foundation

/// `CNPostalAddress`: read-only fields (Apple documents them as `String`, never optional).
open class CNPostalAddress: NSObject, @unchecked Sendable {
    var values: [String: String] = [:]
    open var street: String { values["street"] ?? "" }
    open var subLocality: String { values["subLocality"] ?? "" }
    open var city: String { values["city"] ?? "" }
    open var subAdministrativeArea: String { values["subAdministrativeArea"] ?? "" }
    open var state: String { values["state"] ?? "" }
    open var postalCode: String { values["postalCode"] ?? "" }
    open var country: String { values["country"] ?? "" }
    open var isoCountryCode: String { values["isoCountryCode"] ?? "" }
    override public init() {}
}

/// `CNMutablePostalAddress`: the same fields, settable.
open class CNMutablePostalAddress: CNPostalAddress, @unchecked Sendable {
    override open var street: String {
        get { values["street"] ?? "" }
        set { values["street"] = newValue }
    }
    override open var subLocality: String {
        get { values["subLocality"] ?? "" }
        set { values["subLocality"] = newValue }
    }
    override open var city: String {
        get { values["city"] ?? "" }
        set { values["city"] = newValue }
    }
    override open var subAdministrativeArea: String {
        get { values["subAdministrativeArea"] ?? "" }
        set { values["subAdministrativeArea"] = newValue }
    }
    override open var state: String {
        get { values["state"] ?? "" }
        set { values["state"] = newValue }
    }
    override open var postalCode: String {
        get { values["postalCode"] ?? "" }
        set { values["postalCode"] = newValue }
    }
    override open var country: String {
        get { values["country"] ?? "" }
        set { values["country"] = newValue }
    }
    override open var isoCountryCode: String {
        get { values["isoCountryCode"] ?? "" }
        set { values["isoCountryCode"] = newValue }
    }
}

/// `CNPhoneNumber`.
open class CNPhoneNumber: NSObject, @unchecked Sendable {
    public let stringValue: String
    public init(stringValue: String) { self.stringValue = stringValue }
}
