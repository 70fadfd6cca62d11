import Cashier
public import Foundation

extension ApplePay {
    /// Adyen's Payment accounting report (CSV, one line per status change of each payment): the
    /// columns Cashier reads are `Psp Reference`, `Merchant Reference`, `Booking Date`
    /// (`yyyy-MM-dd HH:mm:ss`, UTC here), `Record Type`, `Payment Currency`, `Authorised (PC)` and
    /// `Captured (PC)`; other columns are ignored, so a report with more of them reads the same.
    public enum AccountingReport {
        /// The header the sandbox writes (a subset of Adyen's standard columns, in their order).
        public static let columns = [
            "Company Account", "Merchant Account", "Psp Reference", "Merchant Reference", "Payment Method", "Booking Date", "TimeZone",
            "Main Currency", "Main Amount", "Record Type", "Payment Currency", "Received (PC)", "Authorised (PC)", "Captured (PC)",
        ]

        /// The data lines, by column name.
        /// - Throws: `PaymentError.malformedMessage` when the header lacks a column Cashier reads.
        public static func rows(_ data: Data) throws -> [[String: String]] {
            let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(fields)
            guard let header = lines.first else { return [] }
            for needed in ["Psp Reference", "Record Type", "Booking Date", "Payment Currency"] where !header.contains(needed) {
                throw PaymentError(.malformedMessage, provider: .applePay, "Adyen's accounting report has no '\(needed)' column")
            }
            return lines.dropFirst().map { values in
                Dictionary(zip(header, values).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
            }
        }

        /// Each payment's lifecycle, folded: authorised, captured (`SentForSettle`), refunded
        /// (`SentForRefund`, and `Chargeback`s less `ChargebackReversed`), and `voided` when cancelled or when its capture failed
        /// (`CaptureFailed`: nothing was taken), `refused` when refused.
        public static func payments(_ rows: [[String: String]]) throws -> [ProcessorPayment] {
            let dates = DateFormatter()
            dates.locale = Locale(identifier: "en_US_POSIX")
            dates.timeZone = TimeZone(identifier: "UTC")
            dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
            var byReference: [String: ProcessorPayment] = [:]
            var order: [String] = []
            for row in rows {
                guard let reference = row["Psp Reference"], !reference.isEmpty,
                    let currency = try? Currency(code: row["Payment Currency"] ?? "")
                else { continue }
                func amount(_ column: String) -> Int64 {
                    guard let text = row[column], !text.isEmpty,
                        let money = try? Money(decimal: text.replacingOccurrences(of: "-", with: ""), currency: currency)
                    else {
                        return 0
                    }
                    return money.minorUnits
                }
                let zero = Money.zero(currency)
                var payment =
                    byReference[reference]
                    ?? ProcessorPayment(
                        reference: reference, merchantReference: row["Merchant Reference"], authorized: zero, captured: zero,
                        refunded: zero,
                        state: .refused, status: "received", createdAt: dates.date(from: row["Booking Date"] ?? "") ?? .distantPast)
                if byReference[reference] == nil { order.append(reference) }
                switch row["Record Type"] ?? "" {
                case "Authorised":
                    payment.authorized = Money(minorUnits: amount("Authorised (PC)"), currency: currency)
                    if payment.state == .refused {
                        payment.state = .authorized
                        payment.status = "authorised"
                    }
                case "SentForSettle", "Settled":
                    if row["Record Type"] == "SentForSettle" {
                        payment.captured = Money(minorUnits: payment.captured.minorUnits + amount("Captured (PC)"), currency: currency)
                    }
                    payment.state = .captured
                    payment.status = "captured"
                case "CaptureFailed":
                    // The card scheme rejected the capture: nothing was taken (a recapture's
                    // SentForSettle, later in the report, takes it after all).
                    payment.captured = .zero(currency)
                    payment.state = .voided
                    payment.status = "capture_failed"
                case "Chargeback", "SecondChargeback":
                    // Taken back by the payer's bank: gone back like a refund.
                    payment.refunded = Money(minorUnits: payment.refunded.minorUnits + amount("Captured (PC)"), currency: currency)
                case "ChargebackReversed":
                    payment.refunded = Money(minorUnits: payment.refunded.minorUnits - amount("Captured (PC)"), currency: currency)
                case "SentForRefund":
                    payment.refunded = Money(minorUnits: payment.refunded.minorUnits + amount("Captured (PC)"), currency: currency)
                case "Cancelled", "Expired":
                    payment.state = .voided
                    payment.status = "voided"
                case "Refused", "Error":
                    payment.state = .refused
                    payment.status = "requires_payment_method"
                default: break
                }
                byReference[reference] = payment
            }
            return order.compactMap { byReference[$0] }
        }

        /// One CSV line's fields (RFC 4180 quoting).
        static func fields(_ line: Substring) -> [String] {
            var fields: [String] = []
            var field = ""
            var quoted = false
            var iterator = line.makeIterator()
            while let character = iterator.next() {
                switch (character, quoted) {
                case ("\"", true):
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            if next == "," {
                                fields.append(field)
                                field = ""
                            } else {
                                field.append(next)
                            }
                        }
                    } else {
                        quoted = false
                    }
                case ("\"", false) where field.isEmpty: quoted = true
                case (",", false):
                    fields.append(field)
                    field = ""
                default: field.append(character)
                }
            }
            fields.append(field)
            return fields
        }
    }
}
