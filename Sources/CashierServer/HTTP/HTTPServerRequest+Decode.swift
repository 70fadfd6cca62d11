import CashierHTTP

extension HTTPServerRequest {
    /// The JSON body decoded as `type`, or a ``RequestProblem`` naming what is wrong after
    /// `expected` (see ``RequestProblem/decode(_:from:expected:emptyIsObject:)``).
    func decode<T: Decodable>(_ type: T.Type, expected: String, emptyIsObject: Bool = false) throws -> T {
        try RequestProblem.decode(type, from: body, expected: expected, emptyIsObject: emptyIsObject)
    }
}
