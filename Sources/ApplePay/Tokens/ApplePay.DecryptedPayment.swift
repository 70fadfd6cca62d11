public import Cashier
public import Foundation

extension ApplePay {
    /// A decrypted token's payment data, with Apple's field names in JSON. `description` never
    /// shows the account number.
    public struct DecryptedPayment: Sendable, Codable, Equatable, CustomStringConvertible {
        /// `onlinePaymentCryptogram` and `eciIndicator` (3-D Secure), or `emvData` and
        /// `encryptedPINData` (EMV, as in China).
        public struct PaymentData: Sendable, Codable, Equatable {
            public var onlinePaymentCryptogram: String?
            public var eciIndicator: String?
            public var emvData: String?
            public var encryptedPINData: String?

            public init(
                onlinePaymentCryptogram: String? = nil, eciIndicator: String? = nil, emvData: String? = nil, encryptedPINData: String? = nil
            ) {
                self.onlinePaymentCryptogram = onlinePaymentCryptogram
                self.eciIndicator = eciIndicator
                self.emvData = emvData
                self.encryptedPINData = encryptedPINData
            }
        }

        /// The device account number (DPAN). Never log it.
        public var applicationPrimaryAccountNumber: String
        /// `YYMMDD`.
        public var applicationExpirationDate: String
        /// ISO 4217 numeric, e.g. `840`.
        public var currencyCode: String
        /// In the currency's minor units.
        public var transactionAmount: Int64
        public var cardholderName: String?
        public var deviceManufacturerIdentifier: String
        /// `3DSecure` or `EMV`.
        public var paymentDataType: String
        public var paymentData: PaymentData
        /// The merchant token's identifier (`merchantTokenIdentifier`), present when the token is a
        /// merchant token (MPAN) — issued for a request with a recurring, deferred or automatic
        /// reload commitment: Apple's merchant token notifications and the Merchant Token
        /// Management API name the token by it.
        public var merchantTokenIdentifier: String?

        public init(
            applicationPrimaryAccountNumber: String, applicationExpirationDate: String, currencyCode: String, transactionAmount: Int64,
            cardholderName: String? = nil, deviceManufacturerIdentifier: String, paymentDataType: String, paymentData: PaymentData,
            merchantTokenIdentifier: String? = nil
        ) {
            self.merchantTokenIdentifier = merchantTokenIdentifier
            self.applicationPrimaryAccountNumber = applicationPrimaryAccountNumber
            self.applicationExpirationDate = applicationExpirationDate
            self.currencyCode = currencyCode
            self.transactionAmount = transactionAmount
            self.cardholderName = cardholderName
            self.deviceManufacturerIdentifier = deviceManufacturerIdentifier
            self.paymentDataType = paymentDataType
            self.paymentData = paymentData
        }

        /// Reads Apple's payment data JSON (what ``TokenDecrypter`` decrypts): the same fields as
        /// `Decodable`, read with Cashier's `JSONReader` (`JSONSerialization` costs more than the ECDH here).
        /// `transactionAmount` must be a whole number as written, and not negative.
        /// - Returns: `nil` when a required field is missing or has the wrong type.
        public init?(json: Data) {
            self.init(json: Array(json))
        }

        /// ``init(json:)`` from the decrypted bytes as they are.
        init?(json: [UInt8]) {
            guard let object = try? JSONReader.parse(json),
                let account = object["applicationPrimaryAccountNumber"]?.string,
                let expiry = object["applicationExpirationDate"]?.string, let currency = object["currencyCode"]?.string,
                let amount = object["transactionAmount"]?.int64, amount >= 0,
                let device = object["deviceManufacturerIdentifier"]?.string, let type = object["paymentDataType"]?.string,
                let data = object["paymentData"], case .object = data
            else { return nil }
            self.init(
                applicationPrimaryAccountNumber: account, applicationExpirationDate: expiry, currencyCode: currency,
                transactionAmount: amount,
                cardholderName: object["cardholderName"]?.string, deviceManufacturerIdentifier: device, paymentDataType: type,
                paymentData: PaymentData(
                    onlinePaymentCryptogram: data["onlinePaymentCryptogram"]?.string, eciIndicator: data["eciIndicator"]?.string,
                    emvData: data["emvData"]?.string, encryptedPINData: data["encryptedPINData"]?.string),
                merchantTokenIdentifier: object["merchantTokenIdentifier"]?.string)
        }

        /// The amount as `Money` in the payload's currency.
        /// - Throws: `MoneyError` for a numeric code that is not ISO 4217.
        public func amount() throws -> Money {
            Money(minorUnits: transactionAmount, currency: try Currency(numericCode: currencyCode))
        }

        /// Checks the amount and currency against the order's total.
        /// - Throws: `PaymentError.currencyMismatch` or `.amountMismatch`.
        public func check(total: Money) throws {
            guard let currency = try? Currency(numericCode: currencyCode), currency == total.currency else {
                throw PaymentError(
                    .currencyMismatch, provider: .applePay, "the token is in currency \(currencyCode), the order in \(total.currency.code)")
            }
            guard transactionAmount == total.minorUnits else {
                throw PaymentError(
                    .amountMismatch, provider: .applePay,
                    "the token authorises \(Money(minorUnits: transactionAmount, currency: currency)), the order is for \(total)")
            }
        }

        /// The last four digits only.
        public var maskedAccountNumber: String { "••••" + String(applicationPrimaryAccountNumber.suffix(4)) }

        public var description: String {
            "ApplePay.DecryptedPayment(\(maskedAccountNumber), expires \(applicationExpirationDate), \(transactionAmount) minor units of \(currencyCode), \(paymentDataType))"
        }
    }
}
