extension UnionPay {
    /// A `respCode` (or `origRespCode`): two characters, kept verbatim, with what Cashier reads
    /// from it. The wording of each is UnionPay's; `respMsg` adds a 7-digit detail in brackets
    /// (`交易失败 11[9100004]Signature verification failed`).
    public struct ResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `00` 成功.
        public static let success = ResponseCode(rawValue: "00")
        /// `A6` 部分成功: the official demos count it as a success.
        public static let partialSuccess = ResponseCode(rawValue: "A6")
        /// `11` 验证签名失败.
        public static let signatureFailure = ResponseCode(rawValue: "11")
        /// `12` 重复交易 (an `orderId` and `txnTime` already used).
        public static let duplicate = ResponseCode(rawValue: "12")
        /// `34` 查无此交易.
        public static let notFound = ResponseCode(rawValue: "34")
        /// `35` 原交易不存在或状态不正确.
        public static let originalNotFound = ResponseCode(rawValue: "35")
        /// `36` 与原交易信息不符 (an amount or merchant that differs from the original's).
        public static let originalMismatch = ResponseCode(rawValue: "36")
        /// `37` 查询过频.
        public static let queryTooFrequent = ResponseCode(rawValue: "37")
        /// `98` 文件不存在 (file download).
        public static let fileNotFound = ResponseCode(rawValue: "98")

        /// `00` or `A6`: the transaction succeeded ("判断respCode=00或A6即可认为交易成功").
        public var isSuccess: Bool { self == .success || self == .partialSuccess }

        /// `03`, `04` or `05`: still in process (or timed out at UnionPay): ask again by query.
        public var isInProcess: Bool { ["03", "04", "05"].contains(rawValue) }

        public var description: String { rawValue }
    }
}
