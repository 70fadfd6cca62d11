public import Cashier

extension WeChatPay {
    /// A WeChat Pay trade bill (v2 `pay/downloadbill`, v3 `/v3/bill/tradebill`): CSV whose
    /// values start with a backtick, a header line, one line per trade or refund, then a
    /// summary header and summary line. Amounts are in yuan with two decimals.
    public struct Bill: Sendable {
        /// One line of the bill.
        public struct Row: Sendable, Hashable {
            /// `yyyy-MM-dd HH:mm:ss`, Beijing time.
            public let tradeTime: String
            public let appID: String
            public let mchID: String
            public let transactionID: String
            public let outTradeNo: String
            /// `SUCCESS` for a payment, `REFUND` for a refund line.
            public let tradeState: String
            /// The order's amount.
            public let amount: Money
            /// The refund on a `REFUND` line (zero otherwise).
            public let refundAmount: Money
            public let outRefundNo: String
            public let subject: String
            /// `手续费`, rounded to the fen: what WeChat Pay charged on a payment line, negative on a
            /// refund line (the part of the fee returned with the refund).
            public let fee: Money

            public init(
                tradeTime: String, appID: String, mchID: String, transactionID: String, outTradeNo: String, tradeState: String,
                amount: Money, refundAmount: Money, outRefundNo: String, subject: String, fee: Money? = nil
            ) {
                self.tradeTime = tradeTime
                self.appID = appID
                self.mchID = mchID
                self.transactionID = transactionID
                self.outTradeNo = outTradeNo
                self.tradeState = tradeState
                self.amount = amount
                self.refundAmount = refundAmount
                self.outRefundNo = outRefundNo
                self.subject = subject
                self.fee = fee ?? Money.zero(amount.currency)
            }
        }

        public let rows: [Row]

        static let header =
            "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注"
        static let summaryHeader = "总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额"

        public init(rows: [Row]) {
            self.rows = rows
        }

        /// Parses a bill.
        /// - Throws: `PaymentError.malformedMessage` naming the line that does not fit.
        public init(parsing text: String) throws {
            var reader = try Reader(text: text)
            var rows: [Row] = []
            while let row = try reader.next() { rows.append(row) }
            self.rows = rows
        }

        /// A fee cell: five places in yuan, rounded to the fen; charged on a payment, returned on a
        /// refund whichever sign the file gives it.
        static func fee(_ text: String, currency: Currency, refund: Bool) throws -> Money {
            let value = text.isEmpty ? Money.zero(currency) : try Money(roundingDecimal: text, currency: currency)
            let magnitude = value.minorUnits.magnitude
            return Money(minorUnits: refund ? -Int64(magnitude) : Int64(magnitude), currency: currency)
        }

        /// Five places, as WeChat prints 手续费.
        static func feeText(_ fee: Money) -> String {
            fee.decimalString + String(repeating: "0", count: max(0, 5 - fee.currency.minorUnits))
        }

        /// The bill as WeChat writes it.
        public var text: String {
            func field(_ value: String) -> String { "`" + value.replacingOccurrences(of: ",", with: "，") }
            var lines = [Self.header]
            for row in rows {
                let zero = Money.zero(row.amount.currency).decimalString
                let settled = row.tradeState == "REFUND" ? zero : row.amount.decimalString
                let values = [
                    row.tradeTime, row.appID, row.mchID, "0", "", row.transactionID, row.outTradeNo, "oSandboxPayer", "APP", row.tradeState,
                    "OTHERS",
                    row.amount.currency.code, settled, "0.00", row.tradeState == "REFUND" ? "50" + row.transactionID.suffix(10) : "0",
                    row.tradeState == "REFUND" ? row.outRefundNo : "0", row.refundAmount.decimalString, "0.00",
                    row.tradeState == "REFUND" ? "ORIGINAL" : "",
                    row.tradeState == "REFUND" ? "SUCCESS" : "", row.subject, "", Self.feeText(row.fee), "0.60%", row.amount.decimalString,
                    row.refundAmount.decimalString, "",
                ]
                lines.append(values.map(field).joined(separator: ","))
            }
            let paid = rows.filter { $0.tradeState != "REFUND" }
            let currency = rows.first?.amount.currency ?? .cny
            let paidTotal = (try? Money.sum(paid.map(\.amount), currency: currency)) ?? .zero(currency)
            let refundTotal = (try? Money.sum(rows.map(\.refundAmount), currency: currency)) ?? .zero(currency)
            let feeTotal = (try? Money.sum(rows.map(\.fee), currency: currency)) ?? .zero(currency)
            lines.append(Self.summaryHeader)
            lines.append(
                [
                    String(rows.count), paidTotal.decimalString, refundTotal.decimalString, "0.00", Self.feeText(feeTotal),
                    paidTotal.decimalString,
                    refundTotal.decimalString,
                ]
                .map(field).joined(separator: ","))
            return lines.joined(separator: "\r\n") + "\r\n"
        }
    }
}
