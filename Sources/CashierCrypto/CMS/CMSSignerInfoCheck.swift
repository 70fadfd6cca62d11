import Foundation

/// The common shape of a detached CMS signature checked directly: one `SignerInfo` naming its
/// certificate by issuer and serial number, SHA-256, ECDSA with a P-256 key, DER signed
/// attributes holding `contentType` id-data, `messageDigest` and (optionally) `signingTime`.
///
/// The checks are CMS's (RFC 5652 §5.4, §11): the content type, the message digest of the
/// content, and the signature over the DER signed attributes (their `[0]` tag read as SET);
/// OpenSSL makes the digests and the ECDSA verification. Any other shape is `.notApplicable`
/// and goes to `CMS_verify`.
enum CMSSignerInfoCheck {
    enum Outcome {
        case valid(signer: X509Certificate, signingTime: Date?)
        case invalid(String)
        case notApplicable
    }

    static let idData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    static let ecdsaWithSHA256: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02]
    static let contentType: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
    static let messageDigest: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    static let signingTime: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x05]

    struct NotApplicable: Error {}

    /// - Parameters:
    ///   - der: the whole `ContentInfo`.
    ///   - parts: its `SignedData`'s children other than `certificates`.
    static func run(
        signedData der: [UInt8], parts: [BERReader.Element], content: UnsafeRawBufferPointer, certificates: [CMSDetachedVerifier.Entry]
    ) throws -> Outcome {
        do {
            return try check(der, parts, content, certificates)
        } catch is NotApplicable {
            return .notApplicable
        } catch is BERReader.Malformed {
            return .notApplicable
        }
    }

    private static func check(
        _ der: [UInt8], _ parts: [BERReader.Element], _ content: UnsafeRawBufferPointer, _ certificates: [CMSDetachedVerifier.Entry]
    ) throws -> Outcome {
        let reader = BERReader(bytes: der)
        func bytes(_ element: BERReader.Element) -> ArraySlice<UInt8> { der[element.start..<element.end] }
        func expect(_ condition: Bool) throws { if !condition { throw NotApplicable() } }

        try expect(parts.count == 4 && parts[0].tag == 0x02 && parts[1].tag == 0x31 && parts[2].tag == 0x30 && parts[3].tag == 0x31)
        let encapsulated = try reader.children(of: parts[2])
        try expect(encapsulated.count == 1 && bytes(encapsulated[0]).elementsEqual(idData))
        let signerInfos = try reader.children(of: parts[3])
        try expect(signerInfos.count == 1 && signerInfos[0].tag == 0x30)
        let fields = try reader.children(of: signerInfos[0])
        try expect(fields.count == 6 && bytes(fields[0]).elementsEqual([0x02, 0x01, 0x01]) && fields[1].tag == 0x30)
        try expect(fields[3].tag == 0xA0 && fields[5].tag == 0x04 && der[fields[3].start + 1] != 0x80)
        try expect(try reader.children(of: fields[2]).first.map { bytes($0).elementsEqual(sha256) } == true)
        try expect(try reader.children(of: fields[4]).first.map { bytes($0).elementsEqual(ecdsaWithSHA256) } == true)

        // The signer: the one embedded certificate with this issuer and serial number.
        let sid = try reader.children(of: fields[1])
        try expect(sid.count == 2 && sid[0].tag == 0x30 && sid[1].tag == 0x02)
        try expect(certificates.allSatisfy { $0.issuerAndSerial != nil })
        let matches = certificates.filter { entry in
            guard let (issuer, serial) = entry.issuerAndSerial else { return false }
            return CMSDetachedVerifier.equal(issuer, bytes(sid[0])) && CMSDetachedVerifier.equal(serial, bytes(sid[1]))
        }
        try expect(matches.count == 1)
        guard let key = matches[0].p256Key else { throw NotApplicable() }

        // The signed attributes.
        var type: ArraySlice<UInt8>?
        var digest: ArraySlice<UInt8>?
        var time: Date?
        var seen: [ArraySlice<UInt8>] = []  // a handful of attributes: a list beats hashing
        for attribute in try reader.children(of: fields[3]) {
            let pair = try reader.children(of: attribute)
            try expect(pair.count == 2 && pair[0].tag == 0x06 && pair[1].tag == 0x31)
            let oid = bytes(pair[0])
            guard !seen.contains(where: { $0.elementsEqual(oid) }) else { return .invalid("a signed attribute appears twice") }
            seen.append(oid)
            let values = try reader.children(of: pair[1])
            guard values.count == 1 else { return .invalid("a signed attribute has \(values.count) values") }
            if oid.elementsEqual(contentType) {
                type = bytes(values[0])
            } else if oid.elementsEqual(messageDigest) {
                try expect(values[0].tag == 0x04)
                digest = der[values[0].contents]
            } else if oid.elementsEqual(signingTime) {
                guard let parsed = date(values[0], der) else { throw NotApplicable() }
                time = parsed
            }
        }
        guard let type, type.elementsEqual(idData) else { return .invalid("the signed contentType is not id-data") }
        guard let digest, digest.elementsEqual(DigestAlgorithm.sha256.hash(content)) else {
            return .invalid("the signed message digest is not the content's SHA-256")
        }
        var signedBytes = Array(bytes(fields[3]))
        signedBytes[0] = 0x31  // signed as SET OF Attribute (RFC 5652 §5.4)
        guard key.isValidSignature(Array(der[fields[5].contents]), for: signedBytes) else {
            return .invalid("the signature does not verify with the signer certificate's key")
        }
        return .valid(signer: matches[0].certificate, signingTime: time)
    }

    /// The raw issuer Name and serialNumber INTEGER of a certificate.
    static func issuerAndSerial(_ der: [UInt8]) throws -> (issuer: [UInt8], serial: [UInt8]) {
        let reader = BERReader(bytes: der)
        guard let tbs = try reader.children(of: try reader.element(at: 0, limit: der.count)).first else { throw NotApplicable() }
        var fields = try reader.children(of: tbs)[...]
        if fields.first?.tag == 0xA0 { fields = fields.dropFirst() }
        guard fields.count >= 3 else { throw NotApplicable() }
        let serial = fields[fields.startIndex]
        let issuer = fields[fields.startIndex + 2]
        return (Array(der[issuer.start..<issuer.end]), Array(der[serial.start..<serial.end]))
    }

    /// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`), UTC only.
    static func date(_ element: BERReader.Element, _ der: [UInt8]) -> Date? {
        let text = Array(der[element.contents])
        let digits: ArraySlice<UInt8>
        var year: Int
        switch (element.tag, text.count) {
        case (0x17, 13):
            digits = text[2..<12]
            guard let short = number(text[0..<2]) else { return nil }
            year = short < 50 ? 2000 + short : 1900 + short
        case (0x18, 15):
            digits = text[4..<14]
            guard let full = number(text[0..<4]) else { return nil }
            year = full
        default: return nil
        }
        guard text.last == UInt8(ascii: "Z"), let month = number(digits.prefix(2)), let day = number(digits.dropFirst(2).prefix(2)),
            let hour = number(digits.dropFirst(4).prefix(2)), let minute = number(digits.dropFirst(6).prefix(2)),
            let second = number(digits.dropFirst(8).prefix(2)), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return digits.isEmpty ? nil : value
    }
}
