import Foundation

@testable import CashierCrypto

/// Reads the JSON and PEM fixtures copied from ../shared/vectors into `Vectors/`.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors") else {
            throw FixtureMissing(name: name)
        }
        return try Data(contentsOf: url)
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try data(name), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(type, from: data(name))
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "fixture Vectors/\(name) is missing from the test bundle" }
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        // Test fixtures are trusted; a typo should fail loudly.
        self = try! Hex.decode(hex)
    }
}
