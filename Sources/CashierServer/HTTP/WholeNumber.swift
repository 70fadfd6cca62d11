/// A whole number in a request body, read so that any JSON number — `1e300`, `0.5`, one past
/// Int64 — is refused with the path of the field that holds it (Foundation's decoder reports
/// such numbers as "not valid JSON", naming nothing). Requests bound every such field far below
/// 2⁵³, where a JSON number is exact.
struct WholeNumber: Decodable, Sendable, Equatable {
    let value: Int64

    init(_ value: Int64) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // A string or `true` is "expected a whole number", not a mismatch with the Double read here.
        guard let number = try? container.decode(Double.self) else {
            throw DecodingError.typeMismatch(
                Int64.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a whole number"))
        }
        guard number.isFinite, number.rounded() == number, abs(number) < 9_007_199_254_740_992 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) is not a whole number within range")
        }
        value = Int64(number)
    }
}
