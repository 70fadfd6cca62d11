/// Random letters and digits for record ids and provider numbers.
enum RandomID {
    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    static func make(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(decoding: (0..<count).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] }, as: UTF8.self)
    }
}
